// `npm run channels:simulate -- [CHANNEL] [--base URL] [--minutes N]`: plays a customer into the
// running product on a messaging channel, for demos. It starts the channel's stand-in (the
// provider's API as the tests use it), points a "Simulator" account of that channel at it (in the
// product's database: DATA_DIR / DATABASE_URL and SESSION_SECRET as the product has them), sends a
// short conversation through the product's webhook, signed as the provider signs, then prints the
// agents' answers as they arrive and sends their delivery and read receipts, for N minutes.
// `--bot` switches the WAUCHAT chat bot on for the Simulator account and answers its menus first
// (1 English, 14 Washing Machine); without it the bot is off there.
import { openDatabase, setDb } from "../../db/client";
import { startMetaStandin, waContact, waStatus, waText, whatsappBody } from "./meta-standin";
import { startLineStandin } from "./line-standin";
import { startTelegramStandin } from "./telegram-standin";
import { startTwilioStandin } from "./twilio-standin";
import { startXStandin, type XStandin } from "./x-standin";
import { startFacebookStandin } from "./facebook-standin";
import { startInstagramStandin } from "./instagram-standin";

interface Simulation {
  /** The kind of the account the channel's conversations come in on, when not the channel itself (X mentions: a TW_DM account; a Page's comments: its FB_PM account; Instagram's three channels: one IG_PM account). */
  accountKind?: string;
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

/** A Facebook Page on the stand-in, as its FB_PM account's settings. */
async function facebookPage() {
  const fb = await startFacebookStandin();
  return {
    fb,
    config: { pageId: fb.page.id, apiBase: fb.apiBase },
    secrets: { accessToken: fb.page.accessToken, appSecret: fb.appSecret, verifyToken: "simulator" },
    address: "simulator page",
  };
}

const SIMULATIONS: Record<string, Simulation> = {
  FB_PM: {
    async start() {
      const { fb, ...account } = await facebookPage();
      const psid = fb.addUser("Nur Aisyah", "(simulated)");
      let seen = 0;
      return {
        ...account,
        say: async (url, text) => (await fb.deliver(url, fb.body([{ pageId: fb.page.id, messaging: [fb.text(fb.page.id, psid, text)] }]))).status,
        async answers(url) {
          const fresh = fb.sent.slice(seen);
          seen = fb.sent.length;
          if (fresh.length) {
            const now = Date.now();
            await fb.deliver(url, fb.body([{ pageId: fb.page.id, messaging: [fb.delivery(fb.page.id, psid, now)] }]));
            await fb.deliver(url, fb.body([{ pageId: fb.page.id, messaging: [fb.read(fb.page.id, psid, now)] }]));
          }
          return fresh.map((s) => s.text ?? `[${s.attachment?.type ?? "attachment"}]`);
        },
        close: () => fb.close(),
      };
    },
  },
  FB_PAGE_POST: {
    accountKind: "FB_PM",
    async start() {
      const { fb, ...account } = await facebookPage();
      const post = fb.post(fb.page.id);
      const from = { id: "5550000001", name: customer.name };
      let thread = "";
      let seen = 0;
      return {
        ...account,
        // the first line is a comment on the Page's post, the rest replies under it: one thread, one ticket
        async say(url, text) {
          const change = fb.comment(fb.page.id, post, from, text, thread ? { parent: thread } : {});
          thread ||= change.value.comment_id;
          return (await fb.deliver(url, fb.body([{ pageId: fb.page.id, changes: [change] }]))).status;
        },
        // a reply comment has no receipts
        async answers() {
          const fresh = fb.replies.slice(seen);
          seen = fb.replies.length;
          return fresh.map((r) => r.message);
        },
        close: () => fb.close(),
      };
    },
  },
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
  TW_DM: {
    async start() {
      const x = await startXStandin();
      const sim = xSimulation(x);
      const userId = x.addUser(customer.name, "nur_aisyah");
      return {
        ...sim,
        say: (url, text) => x.deliver(url, x.dmBody([x.dm(userId, text)])),
        // the customer reads each answer (X's read receipt names the last DM read)
        async answers(url) {
          const fresh = sim.fresh();
          if (fresh.length) await x.deliver(url, x.readBody(userId, fresh.at(-1)!.id));
          return fresh.map((s) => s.text ?? `[media ${s.mediaIds.join(", ")}]`);
        },
      };
    },
  },
  TW_MENTION: {
    accountKind: "TW_DM",
    async start() {
      const x = await startXStandin();
      const sim = xSimulation(x);
      const userId = x.addUser(customer.name, "nur_aisyah");
      // the customer's first post mentions the account; the next ones answer the thread's latest post
      let last: { id: string; userId: string } | undefined;
      return {
        ...sim,
        async say(url, text) {
          const post = x.post(userId, text, { replyTo: last, mention: !last });
          last = { id: String(post.id_str), userId };
          return x.deliver(url, x.postBody([post]));
        },
        async answers() {
          const fresh = sim.fresh();
          if (fresh.length) last = { id: fresh.at(-1)!.id, userId: x.userId };
          return fresh.map((s) => s.text ?? `[media ${s.mediaIds.join(", ")}]`);
        },
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

/** X's account settings for the stand-in, and its answers (DMs and reply posts) since the last call. */
function xSimulation(x: XStandin) {
  let seen = 0;
  return {
    config: { userId: x.userId, consumerKey: x.consumerKey, apiBase: x.apiBase },
    secrets: { consumerSecret: x.consumerSecret, accessToken: x.accessToken, accessTokenSecret: x.accessTokenSecret },
    address: `@${x.screenName}`,
    fresh() {
      const fresh = x.sent.slice(seen);
      seen = x.sent.length;
      return fresh;
    },
    close: () => x.close(),
  };
}

/** Instagram: one account (IG_PM) takes direct messages, comments on its posts and mentions; `play` is how the customer writes. */
function instagram(play: "dm" | "comment" | "mention"): Simulation {
  return {
    accountKind: "IG_PM",
    async start() {
      const ig = await startInstagramStandin();
      const from = ig.addUser(customer.name, "nur.aisyah.sim");
      const author = { id: from, username: "nur.aisyah.sim" };
      const postId = "17895695668004550";
      let topComment = "";
      let mentionedMedia = "";
      let seen = 0;
      return {
        config: { igId: ig.igId, apiBase: ig.apiBase },
        secrets: { accessToken: ig.accessToken, appSecret: ig.appSecret, verifyToken: "simulator" },
        address: `@${ig.username}`,
        async say(url, text) {
          if (play === "dm") return (await ig.deliver(url, ig.messagingBody([ig.text(from, text)]))).status;
          if (play === "comment") {
            // the first line starts a comment thread on the shop's post, the rest reply in it
            const comment = ig.comment(author, text, postId, topComment || undefined);
            topComment ||= String(comment.id);
            return (await ig.deliver(url, ig.changesBody("comments", [comment]))).status;
          }
          // the first line @mentions the shop in a post's caption, the rest in comments on that post
          if (!mentionedMedia) {
            mentionedMedia = ig.addMentionedMedia(author.username, `${text} @${ig.username}`);
            return (await ig.deliver(url, ig.changesBody("mentions", [{ media_id: mentionedMedia }]))).status;
          }
          const commentId = ig.addMentionedComment(mentionedMedia, author.username, `@${ig.username} ${text}`);
          return (await ig.deliver(url, ig.changesBody("mentions", [{ media_id: mentionedMedia, comment_id: commentId }]))).status;
        },
        async answers(url) {
          const texts =
            play === "dm"
              ? ig.sent.map((s) => s.text ?? `[${s.attachment?.type}]`)
              : play === "comment"
                ? ig.replies.map((r) => r.message)
                : ig.mentionReplies.map((r) => r.message);
          // a direct message is read at once (Instagram gives read receipts only)
          if (play === "dm") for (const s of ig.sent.slice(seen)) await ig.deliver(url, ig.messagingBody([ig.read(s.to, s.id)]));
          const fresh = texts.slice(seen);
          seen = texts.length;
          return fresh;
        },
        close: () => ig.close(),
      };
    },
  };
}
SIMULATIONS.IG_PM = instagram("dm");
SIMULATIONS.IG_POST = instagram("comment");
SIMULATIONS.IG_MENTION = instagram("mention");

const SCRIPT = ["Hello! I ordered a washing machine last week.", "Order number 100245. It has not arrived yet.", "Can you tell me when it will be delivered?"];
/** With the bot: its language menu, then its product menu (the spec's keypress map), then the story. */
const BOT_SCRIPT = [SCRIPT[0], "1", "14", ...SCRIPT.slice(1)];

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
  const kind = simulation.accountKind ?? channel;
  const existing = (await enabledAccounts(kind as never)).find((a) => a.name === "Simulator");
  const accountId = await saveAccount(
    { kind: kind as never, name: "Simulator", address: played.address, departmentId: 2, config: played.config, secrets: played.secrets },
    existing?.id,
  );
  const bot = args.includes("--bot");
  const w = handle.schema.wauchatAccounts;
  if (bot) await handle.db.insert(w).values({ accountId }).onConflictDoNothing();
  else await handle.db.delete(w).where((await import("drizzle-orm")).eq(w.accountId, accountId));
  await handle.close();
  setDb(undefined);
  const url = `${base}/hooks/channels/${accountId}`;
  console.log(`${channel}: the Simulator account (${accountId}) takes calls at ${url}`);
  for (const line of bot ? BOT_SCRIPT : SCRIPT) {
    const status = await played.say(url, line);
    console.log(`customer → ${line}  [${status}]`);
    if (status !== 200) console.log("  (is the product running, with the channel's plugin switched on?)");
    await new Promise((r) => setTimeout(r, 1500));
  }
  console.log(`Answer in the product; answers show here for ${minutes} minutes (Ctrl+C to stop).`);
  const until = Date.now() + minutes * 60_000;
  while (Date.now() < until) {
    for (const answer of await played.answers(url)) console.log(`${bot ? "desk" : "agent"} → ${answer}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  await played.close();
}

await main();
