// npm run user:create -- [--admin] --username NAME --email ADDR [--name "Full Name"] [--workspace "Name"]
// Makes a user with no usable password and prints a one-time link to set one. On an empty install
// the first user must be an admin, and the workspace is created with them.
import "dotenv/config";
import { parseArgs } from "node:util";
import { getDb } from "@db/client";
import { createUserFromCli, FirstUserMustBeAdmin, inviteUrl, PERSON_NAME_MAX, UserTaken, WORKSPACE_NAME_MAX, baseUrl } from "./setup.server";
import { emailSchema, usernameSchema, USERNAME_MAX_LENGTH, USERNAME_MIN_LENGTH } from "./username";

const USAGE = 'Usage: npm run user:create -- [--admin] --username NAME --email ADDR [--name "Full Name"] [--workspace "Name"]';
const RULES: Record<string, string> = {
  "setup.rules.usernameLength": `the username must be ${USERNAME_MIN_LENGTH} to ${USERNAME_MAX_LENGTH} characters long`,
  "setup.rules.usernameChars": "the username may hold only letters, digits, dots, dashes and underscores (no spaces)",
  "setup.rules.emailRequired": "--email is required",
  "setup.rules.emailInvalid": "the email address is not valid",
};

function fail(message: string): never {
  console.error(`user:create: ${message}`);
  process.exit(1);
}

function read() {
  let values;
  try {
    values = parseArgs({
      options: {
        admin: { type: "boolean", default: false },
        username: { type: "string", default: "" },
        email: { type: "string", default: "" },
        name: { type: "string", default: "" },
        workspace: { type: "string", default: "" },
      },
    }).values;
  } catch (error) {
    fail(`${(error as Error).message}\n${USAGE}`);
  }
  if (!values.username) fail(`--username is required\n${USAGE}`);
  const username = usernameSchema.safeParse(values.username);
  if (!username.success) fail(RULES[username.error.issues[0].message] ?? "the username is not valid");
  const email = emailSchema.safeParse(values.email);
  if (!email.success) fail(RULES[email.error.issues[0].message] ?? "the email address is not valid");
  const name = values.name.trim() || username.data;
  if (name.length > PERSON_NAME_MAX) fail(`--name takes at most ${PERSON_NAME_MAX} characters`);
  const workspace = values.workspace.trim();
  if (workspace.length > WORKSPACE_NAME_MAX) fail(`--workspace takes at most ${WORKSPACE_NAME_MAX} characters`);
  return { username: username.data, email: email.data, name, workspace, admin: values.admin };
}

const input = read();
const handle = getDb();
try {
  await handle.migrate();
  const { user, tokens, invite } = await createUserFromCli(input);
  if (tokens) {
    const base = baseUrl();
    console.log(`Created the workspace "${input.workspace || input.name}". Its public pages:`);
    console.log(`  live chat  ${base}/livechat/${tokens.livechat}`);
    console.log(`  new ticket ${base}/new_ticket/${tokens.new_ticket}`);
    console.log(`  survey     ${base}/survey/${tokens.survey}`);
  }
  console.log(`Created ${user.type} "${user.username}" (${user.email}).`);
  console.log(`Set the password within 7 days, once: ${inviteUrl(invite)}`);
} catch (error) {
  if (!(error instanceof UserTaken || error instanceof FirstUserMustBeAdmin)) throw error;
  console.error(`user:create: ${error.message}`);
  process.exitCode = 1;
} finally {
  await handle.close();
}
