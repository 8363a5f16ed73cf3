package it.dev.dockyard.support;

import java.time.Duration;
import java.util.List;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console's page as a browser test meets it. After a load its script shows the login form at
 * once, or, with a key kept in the tab's sessionStorage, the signed-in shell only when
 * {@code /users/me} has answered. A test that looks for the log-out button right after the load can
 * look in that gap, find it hidden, and then wait for a login form that never comes.
 */
public final class ConsolePage {

    private ConsolePage() {
    }

    /** Waits until the page shows one of its two states, and logs out if it is signed in. */
    public static void signedOut(WebDriver browser, Duration within) {
        WebElement settled = new WebDriverWait(browser, within, Duration.ofMillis(200))
                .ignoring(StaleElementReferenceException.class)
                .until(page -> {
                    for (String id : List.of("api-key", "logout")) {
                        List<WebElement> found = page.findElements(By.id(id));
                        if (!found.isEmpty() && found.get(0).isDisplayed()) {
                            return found.get(0);
                        }
                    }
                    return null;
                });
        if ("logout".equals(settled.getAttribute("id"))) {
            settled.click();
        }
    }
}
