package io.pagemark.commit.markers;

import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * An item that carries (or should carry) a page marker: its primary key, its index sort key, the marker's number and
 * its tie correction. An immutable value.
 *
 * @param primaryKey the table's primary key of the item
 * @param sortKey the item's GSI sort key value, which a stamp is conditioned on
 * @param page the marker: the item ends ascending page {@code page}
 * @param tie how many positions later DynamoDB's descending read returns the item than the reverse of its ascending
 *     read would (0 outside runs of equal sort keys)
 */
public record MarkedItem(Map<String, AttributeValue> primaryKey, AttributeValue sortKey, long page, long tie) {}
