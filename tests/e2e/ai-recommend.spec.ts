// AI assistance in the agent's conversation, with JavaScript off and on: an angry visitor's
// message gets its emotion panel and reply recommendations grounded in a knowledge-base article
// the admin wrote; the agent inserts one into the reply box (without JavaScript through ?draft=)
// and sends it; the Risk hints panel flags a look-alike bank link. Offline, the conversation's
// language page says translation runs offline through Apertium where a pair is installed. With the workspace's model set to the local
// OpenAI-compatible stand-in (JavaScript off and on), a Malay message is shown translated into English
// beside its original, the agent's English reply goes out translated into Malay (the English one
// click away), and choosing Malay again shows the conversation in the customer's language. Dismissing a
// recommendation (JavaScript off and on) takes it off the panel for good and counts it on the trading
// edition's /ai_learning; with all five dismissed the panel says so.
import { test, expect, type Page } from "@playwright/test";
import { axeViolations } from "./axe";
import { chooseLanguage, hydrated, login, originFor, visitorWrites } from "./helpers";
import { phraseBookModel, startOpenAiStandin } from "../support/openai-standin";

async function axe(page: Page) {
  expect(await axeViolations(page)).toEqual([]);
}

test.describe.configure({ mode: "serial" });

for (const javaScriptEnabled of [false, true]) {
  test.describe(`AI recommendations with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("an angry customer gets a recommendation grounded in a KB article, which the agent inserts and sends", async ({ page, browser, baseURL }) => {
      test.setTimeout(120_000);
      const word = `gondola${Date.now().toString(36)}${javaScriptEnabled ? "a" : "b"}`;
      const title = `Late ${word} parcels`;
      await login(page, "admin", "admin");
      await page.goto("/kb/new");
      await page.getByLabel("Title").fill(title);
      await page.getByLabel("Category").fill("Shipping");
      await page
        .getByLabel("Text (Markdown)")
        .fill(`A late ${word} parcel can be tracked with the link in your shipping email. After ten working days we send a new one.`);
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page.getByText("Saved (version 1).")).toBeVisible();

      const subject = `Furious about ${word} ${javaScriptEnabled ? "js" : "nojs"}`;
      await visitorWrites(
        browser,
        baseURL!,
        javaScriptEnabled,
        subject,
        `This is RIDICULOUS! My ${word} parcel is three weeks late and nobody answers. I'm furious!!! Your bank page at maybank2u-login.com asked for my TAC number.`,
      );

      const agentContext = await browser.newContext({ javaScriptEnabled, baseURL });
      await chooseLanguage(agentContext, baseURL!);
      const agent = await agentContext.newPage();
      await login(agent, "agent", "agent");
      await agent.locator(".ticket-item .title", { hasText: subject }).click();
      await expect(agent.getByRole("heading", { level: 1 })).toContainText(subject);
      const emotion = agent.getByRole("region", { name: "Emotion", exact: true });
      await expect(async () => {
        await agent.reload();
        await expect(emotion).toContainText(/Customer: Anger \(\d+% sure\)/, { timeout: 1_000 });
      }).toPass({ timeout: 30_000 });
      if (javaScriptEnabled) await hydrated(agent);

      const recommendations = agent.locator('[data-panel="ai-recommend"]');
      await expect(recommendations.getByRole("heading", { name: "Recommendations" })).toBeVisible();
      await expect(recommendations.locator("li")).toHaveCount(5);
      const grounded = recommendations.locator("li", { hasText: /^Alternative \(\d+% sure\): Offer another way/ });
      await expect(grounded.getByRole("link", { name: `Source: ${title}` })).toBeVisible();
      await expect(recommendations).toContainText("Advocacy");
      const risk = agent.locator('[data-panel="ai-risk"]');
      await expect(risk).toContainText("The link maybank2u-login.com looks like maybank.com but is not it");
      await expect(risk).toContainText("tac number");
      if (javaScriptEnabled) await axe(agent);

      await grounded.getByRole("link", { name: /^Insert: / }).click();
      const box = agent.locator('#reply textarea[name="message"]');
      await expect(box).toHaveValue(
        /^I'm sorry for the trouble, and I understand your frustration\. Here is another way to sort this out: A late gondola\w+ parcel can be tracked/,
      );
      await box.press("End");
      await box.pressSequentially(" Sorry again.");
      await agent.getByRole("button", { name: "Send", exact: true }).click();
      await expect(agent.locator(".message", { hasText: "Here is another way to sort this out" }).last()).toContainText("Sorry again.");

      // offline, the conversation's language page says translation runs through Apertium where a pair is installed
      await agent.locator('[data-panel="ai-translate"]').getByRole("link", { name: "Choose the language" }).click();
      await expect(agent.getByRole("heading", { level: 1, name: "Conversation language" })).toBeVisible();
      await expect(agent.getByTestId("ai-translate-state")).toHaveText(
        "Offline, translation runs on this server with Apertium, for the language pairs installed there; other pairs say they are not available. An admin can set up an OpenAI-compatible server in the AI settings.",
      );
      if (javaScriptEnabled) await axe(agent);
      await agentContext.close();
    });
  });
}

for (const javaScriptEnabled of [false, true]) {
  test.describe(`dismissing recommendations, JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });

    test("a dismissed recommendation leaves the panel for good, counts on /ai_learning, and the last one dismissed says so", async ({
      page,
      browser,
      baseURL,
    }) => {
      test.setTimeout(180_000);
      const stamp = `${Date.now().toString(36)}${javaScriptEnabled ? "j" : "n"}`;
      const subject = `Still no refund ${stamp}`;
      await visitorWrites(
        browser,
        baseURL!,
        javaScriptEnabled,
        subject,
        `I am so angry! My refund ${stamp} never came and nobody answers my emails. Fix this now!`,
      );

      // what /ai_learning (the trading edition's admin page) counted for Advocacy before
      const trade = originFor(baseURL!, "trade.localhost");
      await chooseLanguage(page.context(), baseURL!, "en", "trade.localhost");
      const learning = await page.context().newPage();
      await login(learning, "admin", "admin", undefined, trade);
      const decided = async () => {
        await learning.goto(`${trade}/ai_learning`);
        const note = await learning.locator(".chart-card").filter({ hasText: "Advocacy:" }).first().textContent();
        return Number(/Advocacy: \d+% of (\d+)\./.exec(note ?? "")?.[1]);
      };
      const before = await decided();
      expect(before).toBeGreaterThanOrEqual(0);

      await chooseLanguage(page.context(), baseURL!);
      await login(page, "admin", "admin");
      await page.goto("/ticket");
      await page.locator(".ticket-item .title", { hasText: subject }).click();
      await expect(page.getByRole("heading", { level: 1 })).toContainText(subject);
      const recommendations = page.locator('[data-panel="ai-recommend"]');
      const items = recommendations.locator("li");
      await expect(async () => {
        await page.reload();
        await expect(items).toHaveCount(5, { timeout: 1_000 });
      }).toPass({ timeout: 30_000 });
      if (javaScriptEnabled) await hydrated(page);

      await recommendations.getByRole("button", { name: "Dismiss Advocacy" }).click();
      await expect(items).toHaveCount(4);
      await expect(recommendations.locator("li", { hasText: /^Advocacy \(/ })).toHaveCount(0);
      await expect(recommendations.getByRole("button", { name: "Dismiss Advocacy" })).toHaveCount(0);
      // kept on the server: a fresh load leaves it out too
      await page.reload();
      await expect(items).toHaveCount(4);
      await expect(recommendations.locator("li", { hasText: /^Alternative \(/ })).toHaveCount(1);
      await expect.poll(decided).toBe(before + 1);

      // the other four dismissed too: the panel says every one was
      for (const kind of ["Alternative", "Personality", "Forward resolution", "Anchor"]) {
        if (javaScriptEnabled) await hydrated(page);
        await recommendations.getByRole("button", { name: `Dismiss ${kind}` }).click();
        await expect(recommendations.getByRole("button", { name: `Dismiss ${kind}` })).toHaveCount(0);
      }
      await expect(items).toHaveCount(0);
      await expect(recommendations).toContainText("Every recommendation for this message was dismissed.");
      if (javaScriptEnabled) await axe(page);
      await learning.close();
    });
  });
}

for (const javaScriptEnabled of [false, true]) {
  test.describe(`translation through the workspace's model, JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });

    test("a Malay message is shown in English beside its original, the English reply goes out in Malay, and back", async ({ page, browser, baseURL }) => {
      test.setTimeout(120_000);
      const stamp = `${Date.now()}${javaScriptEnabled ? "j" : "n"}`;
      const malay = `Saya sangat marah, bungkusan saya belum sampai lagi! ${stamp}`;
      const english = "I am very angry, my parcel has not arrived yet!";
      const reply = `Your parcel arrives tomorrow, sorry for the wait. ${stamp}`;
      const replyMalay = `Bungkusan anda tiba esok, maaf kerana menunggu. ${stamp}`;
      const standin = await startOpenAiStandin();
      standin.respond = phraseBookModel({ [malay]: english, [reply]: replyMalay }, "not json");
      try {
        await chooseLanguage(page.context(), baseURL!);
        await login(page, "admin", "admin");
        await page.goto("/settings/ai");
        if (javaScriptEnabled) await hydrated(page);
        await page.getByRole("radio", { name: "OpenAI-compatible server (hosted or local)" }).check();
        await page.getByLabel("Base URL").fill(standin.url);
        await page.getByLabel("Chat model").fill("standin-chat");
        await page.getByLabel("API key").fill(standin.key);
        await page.getByRole("button", { name: "Save" }).click();
        await expect(page.getByText("The AI settings are saved.")).toBeVisible();

        const subject = `Bungkusan ${stamp}`;
        await visitorWrites(browser, baseURL!, javaScriptEnabled, subject, malay);
        await page.goto("/ticket");
        await page.locator(".ticket-item .title", { hasText: subject }).click();
        await expect(page.getByRole("heading", { level: 1 })).toContainText(subject);
        const translation = page.locator('[data-panel="ai-translate"]');
        await translation.getByRole("link", { name: "Choose the language" }).click();
        await expect(page.getByTestId("ai-own-language")).toHaveText("The customer writes in Bahasa Melayu.");
        if (javaScriptEnabled) await hydrated(page);
        await page.getByRole("radio", { name: "English" }).check();
        await page.getByRole("button", { name: "Set the language" }).click();
        await expect(translation).toContainText("The visitor's messages in English (the originals are unchanged):");
        await expect(translation.getByText(english)).toBeVisible();
        // the original is unchanged in the conversation, one click away
        await expect(page.locator(".message", { hasText: malay })).toBeVisible();
        await expect(translation).toContainText("Your replies are translated into Malay when sent");
        await translation.getByRole("link", { name: "Original" }).click();
        await expect(page).toHaveURL(/message_id=\d+/);

        // the agent answers in English: the customer gets it in Malay, the English stays one click away
        if (javaScriptEnabled) await hydrated(page);
        await page.locator('#reply textarea[name="message"]').fill(reply);
        await page.getByRole("button", { name: "Send", exact: true }).click();
        await expect(page.locator(".message", { hasText: replyMalay })).toBeVisible();
        await expect(page.locator(".message", { hasText: reply })).toHaveCount(0);
        await expect(translation).toContainText("Your replies as you wrote them (the customer received the translation):");
        await expect(translation.getByText(reply)).toBeVisible();
        expect(standin.requests.some((r) => JSON.stringify(r.body).includes("(ms)") && JSON.stringify(r.body).includes(stamp))).toBe(true);

        // back to Malay, the customer's own language: the conversation is shown as written
        await translation.getByRole("link", { name: "Choose the language" }).click();
        if (javaScriptEnabled) await hydrated(page);
        await page.getByRole("radio", { name: "Bahasa Melayu" }).check();
        await page.getByRole("button", { name: "Set the language" }).click();
        await expect(translation).toContainText("The conversation is shown in the customer's language.");
        expect(standin.requests.some((r) => JSON.stringify(r.body).includes("Target language: English (en)"))).toBe(true);
      } finally {
        await page.goto("/settings/ai");
        if (javaScriptEnabled) await hydrated(page);
        await page.getByRole("radio", { name: "Offline (built in): nothing leaves this machine" }).check();
        await page.getByRole("button", { name: "Save" }).click();
        await standin.close();
      }
    });
  });
}
