// Surveys: a visitor answers /survey/demo, agents read the answers on /forms (tab Main), an admin
// builds a second survey that becomes its own tab with a working public link.
import { test, expect, type Page } from "@playwright/test";
import { chooseLanguage, hydrated, login, PASSWORD } from "./helpers";

/** The submission on the current tab whose first answer is `name`. */
const submission = (page: Page, name: string) => page.locator(".submission", { has: page.locator("dd", { hasText: name }) });

for (const javaScriptEnabled of [true, false]) {
  const mode = javaScriptEnabled ? "js" : "nojs";
  test.describe(`surveys with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("a visitor answers the demo survey; empty answers are refused with the input kept; agents see the answers as text", async ({
      page,
      browser,
      baseURL,
    }) => {
      await page.goto("/survey/demo");
      await expect(page.getByRole("heading", { name: "Customer satisfaction" })).toBeVisible();
      await page.getByRole("button", { name: "Submit" }).click();
      await expect(page.getByText("This cannot be empty.")).toHaveCount(3);

      const name = `<b>Visitor ${mode} ${Date.now()}</b>`;
      await page.getByLabel("Name").fill(name);
      await page.getByLabel("Email").fill("not-an-address");
      await page.getByLabel("Comments").fill("Great <script>alert(1)</script> service");
      await page.getByRole("button", { name: "Submit" }).click();
      await expect(page.getByText("Please check the email address. not-an-address")).toBeVisible();
      await expect(page.getByRole("group", { name: "How satisfied were you?" }).getByText("This cannot be empty.")).toBeVisible();
      await expect(page.getByText("This cannot be empty.")).toHaveCount(1);
      await expect(page.getByLabel("Name")).toHaveValue(name);
      await expect(page.getByLabel("Comments")).toHaveValue("Great <script>alert(1)</script> service");

      await page.getByLabel("Email").fill("visitor@example.com");
      await page.getByLabel("4 stars").check();
      await page.getByRole("button", { name: "Submit" }).click();
      await expect(page.getByRole("heading", { name: "Thank you!" })).toBeVisible();
      await expect(page.getByText("Your answers have been sent. Thank you for contacting us!")).toBeVisible();

      const context = await browser.newContext({ javaScriptEnabled });
      await chooseLanguage(context, baseURL!);
      const agent = await context.newPage();
      await login(agent, "agent", "agent");
      await agent.goto("/forms");
      await expect(agent.getByRole("link", { name: "Main" })).toHaveAttribute("aria-current", "page");
      const answers = submission(agent, name);
      await expect(answers.locator("dt")).toHaveText(["Name", "Email", "How satisfied were you?", "Comments"]);
      await expect(answers.locator("dd")).toHaveText([name, "visitor@example.com", "4", "Great <script>alert(1)</script> service"]);
      // the HTML arrived as text, not as elements
      await expect(answers.locator("dd b, dd script")).toHaveCount(0);
      // agents read, they do not edit
      await expect(agent.getByRole("heading", { name: "Survey fields" })).toHaveCount(0);
      await context.close();
    });

    test("an admin creates a survey with fields; it gets its own tab and a public link that works until renewed", async ({ page, browser, baseURL }) => {
      await login(page, "admin", "admin");
      await page.goto("/forms");
      await page.getByRole("button", { name: "Create survey" }).click();
      await expect(page.getByRole("alert")).toHaveText("Please check all the fields are not empty.");

      const title = `Delivery ${mode} ${Date.now()}`;
      await page.getByLabel("Title", { exact: true }).fill(title);
      await page.getByRole("button", { name: "Create survey" }).click();
      await expect(page.getByRole("status")).toHaveText("Survey created.");
      const tab = page.getByRole("navigation", { name: "Surveys" }).getByRole("link", { name: title });
      await expect(tab).toHaveAttribute("aria-current", "page");
      await expect(page.getByText("No submissions yet.")).toBeVisible();

      // a select field without options is refused, the rows keep what was typed
      await page.locator('input[name="label_0"]').fill("Courier");
      await page.locator('select[name="type_0"]').selectOption("select");
      await page.locator('input[name="required_0"]').check();
      await page.locator('input[name="label_1"]').fill("Anything else?");
      await page.locator('select[name="type_1"]').selectOption("textarea");
      await page.getByRole("button", { name: "Save fields" }).click();
      await expect(page.getByRole("alert")).toHaveText("Please give the options of each select field, separated by commas.");
      await expect(page.locator('input[name="label_1"]')).toHaveValue("Anything else?");
      await expect(page.locator('input[name="label_0"]')).toHaveAttribute("aria-invalid", "true");

      // with JavaScript the refusal above may still be re-rendering the rows (as on the case page):
      // type and save again until it is saved
      await expect(async () => {
        await page.locator('input[name="options_0"]').fill("DHL, UPS");
        await page.getByRole("button", { name: "Save fields" }).click();
        await expect(page.getByRole("status")).toHaveText("Survey updated.", { timeout: 3000 });
      }).toPass({ timeout: 20_000 });
      await expect(page.locator('input[name="label_0"]')).toHaveValue("Courier");
      await expect(page.locator('input[name="options_0"]')).toHaveValue("DHL, UPS");
      // two fields plus three empty rows
      await expect(page.locator(".survey-fields tbody tr")).toHaveCount(5);

      const link = page.locator(".survey-link a");
      const href = (await link.getAttribute("href"))!;
      expect(href).toMatch(/^\/survey\/[\w-]+$/);

      const visitorContext = await browser.newContext({ javaScriptEnabled });
      await chooseLanguage(visitorContext, baseURL!);
      const visitor = await visitorContext.newPage();
      await visitor.goto(href);
      await expect(visitor.getByRole("heading", { name: title })).toBeVisible();
      await visitor.getByRole("button", { name: "Submit" }).click();
      await expect(visitor.getByText("This cannot be empty.")).toHaveCount(1);
      await visitor.getByLabel("Courier").selectOption("UPS");
      await visitor.getByLabel("Anything else?").fill(`On time ${mode}`);
      await visitor.getByRole("button", { name: "Submit" }).click();
      await expect(visitor.getByRole("heading", { name: "Thank you!" })).toBeVisible();

      await page.reload();
      const answers = submission(page, `On time ${mode}`);
      await expect(answers.locator("dt")).toHaveText(["Courier", "Anything else?"]);
      await expect(answers.locator("dd")).toHaveText(["UPS", `On time ${mode}`]);
      // the Main tab does not list it
      await page.getByRole("link", { name: "Main" }).click();
      await expect(page.getByRole("link", { name: "Main" })).toHaveAttribute("aria-current", "page");
      await expect(submission(page, `On time ${mode}`)).toHaveCount(0);

      // a new link revokes the old one
      await tab.click();
      await expect(tab).toHaveAttribute("aria-current", "page");
      await expect(page.getByRole("heading", { level: 2, name: title })).toBeVisible();
      await page.getByRole("button", { name: "New link" }).click();
      await expect(page.getByRole("status")).toHaveText("A new public link was made; the old one no longer works.");
      await expect(page.locator(".survey-link a")).not.toHaveAttribute("href", href);
      const res = await visitor.goto(href);
      expect(res!.status()).toBe(404);
      await expect(visitor.getByRole("heading", { name: "Invalid link" })).toBeVisible();
      await visitorContext.close();
    });
  });
}

test("an unknown survey token shows Invalid link", async ({ page, context, baseURL }) => {
  await chooseLanguage(context, baseURL!);
  const res = await page.goto("/survey/not-a-token");
  expect(res!.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Invalid link" })).toBeVisible();
  await expect(page.getByText("This link maybe used or deleted. Please request a link from your live chat provider again.")).toBeVisible();
});

test("answers without the form's token, or with a forged one, are refused", async ({ request, page, context, baseURL }) => {
  const form = { field_name: "x", field_email: "x@example.com", field_satisfaction: "5" };
  expect((await request.post("/survey/demo", { form })).status()).toBe(403);
  expect((await request.post("/survey/demo", { form: { ...form, _token: "A".repeat(43) } })).status()).toBe(403);

  // in the browser: a forged token in the page is refused with the input kept
  await chooseLanguage(context, baseURL!);
  await page.goto("/survey/demo");
  await page.locator('input[name="_token"]').evaluate((el: HTMLInputElement) => (el.value = "B".repeat(43)));
  await page.getByLabel("Name").fill("Forger");
  await page.getByRole("button", { name: "Submit" }).click();
  await expect(page.getByRole("alert")).toHaveText("This form has expired. Please reload the page and try again.");
  await expect(page.getByLabel("Name")).toHaveValue("Forger");
});

test("agents cannot change surveys", async ({ page, context, baseURL }) => {
  await chooseLanguage(context, baseURL!);
  await login(page, "agent", "agent");
  const res = await page.request.post("/forms", { form: { intent: "create", title: "Sneaky" }, headers: { Origin: baseURL! } });
  expect(res.status()).toBe(403);
  await page.goto("/forms");
  await expect(page.getByRole("link", { name: "Sneaky" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Create survey" })).toHaveCount(0);
});

test("GET /api/forms lists the surveys with their fields and counts, only with a valid _token", async ({ request }) => {
  expect((await request.get("/api/forms")).status()).toBe(403);
  expect((await request.get("/api/forms?_token=nope")).status()).toBe(403);
  const auth = await (await request.post("/api/auth2", { data: { client: "agent", password: PASSWORD, type: "agent" } })).json();
  const res = await request.get(`/api/forms?_token=${auth.token}`);
  expect(res.status()).toBe(200);
  const { list } = await res.json();
  expect(list[0]).toMatchObject({ token: "demo", title: "Customer satisfaction", submissions: expect.any(Number) });
  expect(list[0].fields.map((f: { label: string }) => f.label)).toEqual(["Name", "Email", "How satisfied were you?", "Comments"]);
});

test.describe("paging and the visitor limit, JavaScript off", () => {
  test.use({ javaScriptEnabled: false });

  test("20 answers fill two pages of links; the 21st answer from the same visitor is refused", async ({ page, browser, baseURL }) => {
    await chooseLanguage(page.context(), baseURL!);
    await login(page, "admin", "admin");
    await page.goto("/forms");
    const title = `Paging ${Date.now()}`;
    await page.getByLabel("Title", { exact: true }).fill(title);
    await page.getByRole("button", { name: "Create survey" }).click();
    await page.locator('input[name="label_0"]').fill("Answer");
    await page.locator('input[name="required_0"]').check();
    await page.getByRole("button", { name: "Save fields" }).click();
    await expect(page.getByRole("status")).toHaveText("Survey updated.");
    const href = (await page.locator(".survey-link a").getAttribute("href"))!;

    // the visitor posts from the browser (the server tells visitors apart by address)
    const visitor = await browser.newContext({ javaScriptEnabled: true });
    await chooseLanguage(visitor, baseURL!);
    const visitorPage = await visitor.newPage();
    await visitorPage.goto(href);
    await hydrated(visitorPage);
    // refused posts do not count: after two empty answers, twenty answers still go through
    for (let i = 0; i < 2; i++) {
      await visitorPage.getByRole("button", { name: "Submit" }).click();
      await expect(visitorPage.getByText("This cannot be empty.")).toBeVisible();
    }
    const statuses = await visitorPage.evaluate(async (href) => {
      const form = document.querySelector("form")!;
      const csrf = (form.querySelector('input[name="_token"]') as HTMLInputElement).value;
      const input = (form.querySelector('input[name^="field_"]') as HTMLInputElement).name;
      const out: number[] = [];
      for (let i = 1; i <= 20; i++) {
        const res = await fetch(href, { method: "POST", body: new URLSearchParams({ _token: csrf, [input]: `Answer ${i}` }), redirect: "manual" });
        out.push(res.type === "opaqueredirect" ? 302 : res.status);
      }
      return out;
    }, href);
    expect(statuses).toEqual(Array(20).fill(302));
    await visitorPage.getByLabel("Answer").fill("One too many");
    await visitorPage.getByRole("button", { name: "Submit" }).click();
    await expect(visitorPage.getByRole("alert")).toHaveText("Too many requests. Please try again in a few minutes.");
    await expect(visitorPage.getByLabel("Answer")).toHaveValue("One too many");
    await visitor.close();

    await page.reload();
    await expect(page.locator(".submission")).toHaveCount(10);
    await expect(page.locator(".submission dd").first()).toHaveText("Answer 20");
    const pager = page.getByRole("navigation", { name: "Submission pages" });
    await expect(pager).toContainText("Page 1 of 2");
    await pager.getByRole("link", { name: "Next" }).click();
    await expect(page).toHaveURL(/[?&]page=2/);
    await expect(pager).toContainText("Page 2 of 2");
    await expect(page.locator(".submission dd")).toHaveText(Array.from({ length: 10 }, (_, i) => `Answer ${10 - i}`));
    await expect(pager.getByRole("link", { name: "Next" })).toHaveCount(0);
    await pager.getByRole("link", { name: "Previous" }).click();
    await expect(page.locator(".submission dd").first()).toHaveText("Answer 20");
    await expect(page.getByRole("navigation", { name: "Surveys" }).getByRole("link", { name: title })).toHaveAttribute("aria-current", "page");
  });
});
