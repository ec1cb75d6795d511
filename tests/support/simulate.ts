// `npm run channels:simulate -- [CHANNEL] [--base URL] [--minutes N]`: plays a customer into the
// running product on a messaging channel, for demos. It starts the channel's stand-in (the
// provider's API as the tests use it), points a "Simulator" account of that channel at it (in the
// product's database: DATA_DIR / DATABASE_URL and SESSION_SECRET as the product has them), sends a
// short conversation through the product's webhook, signed as the provider signs, then prints the
// agents' answers as they arrive and sends their delivery and read receipts, for N minutes.
import { openDatabase, setDb } from "../../db/client";
import { startMetaStandin, waContact, waStatus, waText, whatsappBody } from "./meta-standin";
import { startLineStandin } from "./line-standin";
import { startTelegramStandin } from "./telegram-standin";
import { startTwilioStandin } from "./twilio-standin";

interface Simulation {
  /** Starts the stand-in; answers the account's settings and how to play the customer. */
  start(): Promise<{
    config: Record<string, string>;
    secrets: Record<string, string>;
    address: string;
    say(webhookUrl: string, text: string): Promise<number>;
    /** Agents' answers the stand-in received since the last call, each acknowledged with receipts where the provider has them. */
    answers(webhookUrl: string): Promise<string[]>;
    close(): Promise<void>;
  }>;
}

const customer = { id: "60123456789", name: "Nur Aisyah (simulated)" };

const SIMULATIONS: Record<string, Simulation> = {
  WHATSAPP: {
    async start() {
      const meta = await startMetaStandin();
      let seen = 0;
      return {
        config: { phoneNumberId: meta.phoneNumberId, apiBase: meta.apiBase },
        secrets: { accessToken: meta.accessToken, appSecret: meta.appSecret, verifyToken: "simulator" },
        address: "+15550123",
        async say(url, text) {
          const body = whatsappBody(meta.phoneNumberId, { contacts: [waContact(customer.id, customer.name)], messages: [waText(customer.id, text)] });
          return (await meta.deliver(url, body)).status;
        },
        async answers(url) {
          const fresh = meta.sent.slice(seen);
          seen = meta.sent.length;
          for (const s of fresh) {
            await meta.deliver(url, whatsappBody(meta.phoneNumberId, { statuses: [waStatus(s.id, "delivered", s.to)] }));
            await meta.deliver(url, whatsappBody(meta.phoneNumberId, { statuses: [waStatus(s.id, "read", s.to)] }));
          }
          return fresh.map((s) => (s.type === "text" ? String((s.body.text as { body?: string })?.body) : `[${s.type}]`));
        },
        close: () => meta.close(),
      };
    },
  },
  LINE_DM: {
    async start() {
      const line = await startLineStandin();
      const userId = line.addUser(customer.name);
      let seen = 0;
      return {
        config: { apiBase: line.apiUrl, dataApiBase: line.dataUrl },
        secrets: { channelSecret: line.channelSecret, channelAccessToken: line.channelAccessToken },
        address: `@simulator-${line.botUserId.slice(-6).toLowerCase()}`,
        say: (url, text) => line.deliver(url, [line.textEvent(userId, text)]),
        // LINE gives bots no delivery or read receipts
        async answers() {
          const fresh = line.sent.slice(seen);
          seen = line.sent.length;
          return fresh.flatMap((s) => s.messages.map((m) => String((m as { text?: string }).text ?? `[${(m as { type?: string }).type}]`)));
        },
        close: () => line.close(),
      };
    },
  },
  TELEGRAM: {
    async start() {
      const telegram = await startTelegramStandin();
      const secretToken = "simulator-secret-token";
      let seen = 0;
      return {
        config: { mode: "webhook", apiBase: telegram.apiRoot },
        secrets: { botToken: telegram.token, secretToken },
        address: `@${telegram.username}`,
        say: (url, text) =>
          telegram.deliver(telegram.update({ id: 424242, first_name: "Nur", last_name: "Aisyah (simulated)" }, { text }), { url, secret: secretToken }),
        // Telegram gives bots no delivery or read receipts
        async answers() {
          const fresh = telegram.sent.slice(seen);
          seen = telegram.sent.length;
          return fresh.map((s) => s.text ?? s.caption ?? `[${s.method}]`);
        },
        close: () => telegram.close(),
      };
    },
  },
  SMS: {
    async start() {
      const twilio = await startTwilioStandin();
      let seen = 0;
      return {
        config: { gateway: "twilio", accountSid: twilio.accountSid, apiBase: twilio.apiBase },
        secrets: { authToken: twilio.authToken },
        address: twilio.numbers[0],
        say: async (url, text) => (await twilio.post(url, twilio.incoming({ from: `+${customer.id}`, body: text }))).status,
        async answers() {
          const fresh = twilio.sent.slice(seen);
          seen = twilio.sent.length;
          for (const s of fresh) await twilio.callback(s.sid, "delivered");
          return fresh.map((s) => s.body);
        },
        close: () => twilio.close(),
      };
    },
  },
};

const SCRIPT = ["Hello! I ordered a washing machine last week.", "Order number 100245. It has not arrived yet.", "Can you tell me when it will be delivered?"];

async function main() {
  const args = process.argv.slice(2);
  const option = (name: string, fallback: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : fallback;
  };
  const channel = (args.find((a) => !a.startsWith("--") && !args[args.indexOf(a) - 1]?.startsWith("--")) ?? "WHATSAPP").toUpperCase();
  const base = option("base", process.env.BASE_URL || `http://localhost:${process.env.PORT || 3000}`).replace(/\/+$/, "");
  const minutes = Number(option("minutes", "5"));
  const simulation = SIMULATIONS[channel];
  if (!simulation) {
    console.error(`No simulation for ${channel}. Channels: ${Object.keys(SIMULATIONS).join(", ")}`);
    process.exit(2);
  }
  const handle = openDatabase();
  setDb(handle);
  const { enabledAccounts, saveAccount } = await import("../../plugins/channels/accounts.server");
  const played = await simulation.start();
  const existing = (await enabledAccounts(channel as never)).find((a) => a.name === "Simulator");
  const accountId = await saveAccount(
    { kind: channel as never, name: "Simulator", address: played.address, departmentId: 2, config: played.config, secrets: played.secrets },
    existing?.id,
  );
  await handle.close();
  setDb(undefined);
  const url = `${base}/hooks/channels/${accountId}`;
  console.log(`${channel}: the Simulator account (${accountId}) takes calls at ${url}`);
  for (const line of SCRIPT) {
    const status = await played.say(url, line);
    console.log(`customer → ${line}  [${status}]`);
    if (status !== 200) console.log("  (is the product running, with the channel's plugin switched on?)");
    await new Promise((r) => setTimeout(r, 1500));
  }
  console.log(`Answer in the product; answers show here for ${minutes} minutes (Ctrl+C to stop).`);
  const until = Date.now() + minutes * 60_000;
  while (Date.now() < until) {
    for (const answer of await played.answers(url)) console.log(`agent → ${answer}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  await played.close();
}

await main();
