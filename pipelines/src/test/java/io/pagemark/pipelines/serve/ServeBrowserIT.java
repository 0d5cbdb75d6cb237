package io.pagemark.pipelines.serve;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.pagemark.pipelines.PageWalk;
import io.pagemark.server.http.PageServer;
import io.pagemark.testing.Chromium;
import io.pagemark.testing.ChromiumExtension;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.RedisExtension;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.remote.RemoteWebDriver;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The web page in headless Chromium (Debian's, through its chromedriver and Selenium): open a hostile group's first
 * page, click the pagination links to a middle page, the last page and back to the first, and check at each the
 * "page N of P" text and the items against DynamoDB's own walk. A screenshot is kept in
 * {@code target/serve-browser.png}.
 */
@ExtendWith({DynamoDbLocalExtension.class, RedisExtension.class, ChromiumExtension.class})
class ServeBrowserIT {
  static final String GROUP = "a/b";

  @Test
  void clickingThePaginationLinksShowsDynamoDbsPages(Chromium chromium) throws Exception {
    ServeFixture fixture = ServeFixture.get();
    int count = fixture.counts().get(GROUP);
    int size = Math.max(1, count / 7);
    List<List<Map<String, AttributeValue>>> walk =
        PageWalk.pages(fixture.client, ServeFixture.TABLE, ServeFixture.GSI, GROUP, size, true);
    int pages = walk.size();
    assertThat("enough pages for a middle one", pages, greaterThan(4));
    try (PageServer server = fixture.serve(fixture.index, Duration.ofSeconds(2))) {
      ChromeOptions options = new ChromeOptions();
      options.setBinary(chromium.binary().toFile());
      options.addArguments(Chromium.arguments(chromium.newProfile()));
      WebDriver browser = new RemoteWebDriver(new URL(chromium.driverUrl()), options);
      try {
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        browser.get(server.url().resolve("groups/" + ServeIT.segment(GROUP) + "?size=" + size).toString());
        shows(browser, 1, pages, walk);

        int middle = (pages + 1) / 2;
        while (current(browser) < middle) {
          // the highest page link of the window that does not pass the middle page
          WebElement best = null;
          for (WebElement a : browser.findElements(By.cssSelector("nav.pagination a.page"))) {
            int n = Integer.parseInt(a.getText());
            if (n <= middle && (best == null || n > Integer.parseInt(best.getText()))) {
              best = a;
            }
          }
          int target = Integer.parseInt(best.getText());
          best.click();
          shows(browser, target, pages, walk);
        }
        shows(browser, middle, pages, walk);
        Path screenshot = Path.of("target", "serve-browser.png");
        Files.write(screenshot, ((RemoteWebDriver) browser).getScreenshotAs(OutputType.BYTES));
        assertThat(Files.size(screenshot), greaterThan(1000L));

        browser.findElement(By.cssSelector("nav.pagination a.last")).click();
        shows(browser, pages, pages, walk);
        browser.findElement(By.cssSelector("nav.pagination a.first")).click();
        shows(browser, 1, pages, walk);
        assertThat(browser.findElements(By.cssSelector("nav.pagination a.prev")).size(), is(0));
      } finally {
        browser.quit();
      }
    }
  }

  /** The page shown: its position text, its canonical link and its items' keys. */
  static void shows(WebDriver browser, int page, int pages, List<List<Map<String, AttributeValue>>> walk) {
    String what = "page " + page + " (" + browser.getCurrentUrl() + ")";
    assertThat(what, browser.findElement(By.id("position")).getText(), equalTo("page " + page + " of " + pages));
    assertThat(what, browser.getTitle(), equalTo("Group " + GROUP + ": page " + page + " of " + pages));
    String canonical = browser.findElement(By.cssSelector("link[rel=canonical]")).getAttribute("href");
    assertThat(what, canonical.endsWith("/groups/a%2Fb?page=" + page + "&size=" + walk.get(0).size()), is(true));
    List<WebElement> headers = browser.findElements(By.cssSelector("table.items thead th"));
    List<String> names = new ArrayList<>();
    headers.forEach(h -> names.add(h.getText()));
    int pk = names.indexOf("PK");
    int sk = names.indexOf("SK");
    List<String> shown = new ArrayList<>();
    for (WebElement row : browser.findElements(By.cssSelector("table.items tbody tr"))) {
      List<WebElement> cells = row.findElements(By.tagName("td"));
      shown.add(cells.get(pk).getText() + "|" + cells.get(sk).getText());
    }
    assertThat(what, shown, equalTo(PageWalk.keys(walk.get(page - 1))));
  }

  static int current(WebDriver browser) {
    return Integer.parseInt(browser.findElement(By.cssSelector("nav.pagination .current")).getText());
  }
}
