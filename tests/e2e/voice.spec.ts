// The voice-analysis page (/upload), with JavaScript off and on: an agent uploads a WAV recording
// (a loud fast half and a soft slow half, made by tests/support/audio.ts) with its transcript and
// reads energy and pace per segment, the bar chart of levels and the pie chart of the transcript's
// emotions (each with its data table); a PDF renamed .wav is refused as not audio; an MP3 made by
// ffmpeg reads the same as its WAV. axe checks the result page.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test, expect } from "@playwright/test";
import { axeViolations } from "./axe";
import { chooseLanguage, login } from "./helpers";
import { speech, wav } from "../support/audio";

function mp3(audio: Buffer): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-voice-e2e-"));
  try {
    fs.writeFileSync(path.join(dir, "in.wav"), audio);
    execFileSync("ffmpeg", ["-nostdin", "-loglevel", "error", "-i", path.join(dir, "in.wav"), "-c:a", "libmp3lame", "-b:a", "64k", path.join(dir, "out.mp3")]);
    return fs.readFileSync(path.join(dir, "out.mp3"));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

for (const javaScriptEnabled of [false, true]) {
  test.describe(`voice analysis with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("an agent uploads a recording and reads energy, pace and emotions", async ({ page }) => {
      await login(page, "agent", "agent");
      await page.goto("/upload");
      await expect(page.getByRole("heading", { level: 1, name: "Voice analysis" })).toBeVisible();
      const audio = Buffer.from(wav(new Float32Array([...speech(5, 6.5, 0.8), ...speech(5, 1.5, 0.01)])));
      await page.getByLabel(/^Recording/).setInputFiles({ name: "call.wav", mimeType: "audio/wav", buffer: audio });
      await page.getByLabel("Transcript (optional)").fill("This is ridiculous, I am furious, fix it now!");
      await page.getByRole("button", { name: "Analyse" }).click();
      const result = page.getByTestId("voice-result");
      await expect(result.getByText("0–5 s: energy super loud, pace super fast")).toBeVisible();
      await expect(result.getByText("5–10 s: energy super soft, pace super slow")).toBeVisible();
      await expect(result.getByRole("heading", { name: "Energy and pace per segment" })).toBeVisible();
      await expect(result.getByRole("heading", { name: "Emotions of the transcript" })).toBeVisible();
      // the server's SVG, or with JavaScript the live chart that takes over from it
      await expect(result.locator('[data-widget="voice-levels"] svg >> visible=true').first()).toBeVisible();
      if (javaScriptEnabled) await expect(result.locator('.chart[data-live="yes"]')).toHaveCount(2);
      await result.locator('[data-widget="voice-emotions"] summary').click();
      await expect(result.locator('[data-widget="voice-emotions"] table')).toContainText("Anger");
      if (javaScriptEnabled) {
        expect(await axeViolations(page)).toEqual([]);
      }

      await page.getByLabel(/^Recording/).setInputFiles({ name: "invoice.wav", mimeType: "audio/wav", buffer: Buffer.from("%PDF-1.7 an invoice, not audio") });
      await page.getByRole("button", { name: "Analyse" }).click();
      await expect(page.getByTestId("voice-refused")).toHaveText("This file is not audio.");

      // an MP3 (made by ffmpeg, which decodes it on the server too) reads the same
      await page.getByLabel(/^Recording/).setInputFiles({ name: "call.mp3", mimeType: "audio/mpeg", buffer: mp3(audio) });
      await page.getByRole("button", { name: "Analyse" }).click();
      await expect(page.getByTestId("voice-result").getByText("0–5 s: energy super loud, pace super fast")).toBeVisible();
    });
  });
}
