package io.pagemark.key;

/**
 * The three scalar types DynamoDB allows for key attributes, with the one-byte code the index format stores.
 * The code never changes once written to disk.
 */
public enum KeyType {
  /** String: ordered by the unsigned bytes of its UTF-8 encoding. */
  S((byte) 1),
  /** Number: ordered by numeric value (up to 38 significant digits). */
  N((byte) 2),
  /** Binary: ordered by unsigned bytes. */
  B((byte) 3);

  private final byte code;

  KeyType(byte code) {
    this.code = code;
  }

  /** The code the index format stores for this type. */
  public byte code() {
    return code;
  }

  /** The type for a stored code; throws {@link IllegalArgumentException} for an unknown one. */
  public static KeyType fromCode(byte code) {
    for (KeyType t : values()) {
      if (t.code == code) {
        return t;
      }
    }
    throw new IllegalArgumentException("unknown key type code " + (code & 0xff));
  }

  /** The type named as DynamoDB names it ("S", "N" or "B"); throws for anything else. */
  public static KeyType fromDynamoName(String name) {
    switch (name) {
      case "S":
        return S;
      case "N":
        return N;
      case "B":
        return B;
      default:
        throw new IllegalArgumentException(
            "key attributes must be of type S, N or B, not \"" + name + "\"");
    }
  }
}
