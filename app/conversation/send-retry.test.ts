// A send whose answer never came back is kept (text and key) for its retry; a refusal or a
// redirect from the server passes through unchanged.
import { describe, expect, it } from "vitest";
import type { ClientActionFunctionArgs } from "@remix-run/react";
import { CONNECTION_LOST, keepSendOnLostAnswer } from "./send-retry";

const post = (fields: Record<string, string>) => {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.set(k, v);
  return new Request("http://localhost/ticket/100001", { method: "POST", body });
};
const args = (request: Request, serverAction: () => Promise<unknown>) => ({ request, params: {}, serverAction }) as unknown as ClientActionFunctionArgs;

describe("keepSendOnLostAnswer", () => {
  it("turns a fetch with no answer into a failed send with its text and request key", async () => {
    const request = post({ intent: "reply", message: "Hello", request_key: "k-1", cc: "" });
    const result = await keepSendOnLostAnswer(
      args(request, async () => {
        await request.formData(); // the real serverAction reads the body first
        throw new TypeError("Failed to fetch");
      }),
    );
    expect(result).toEqual({ intent: "reply", message: CONNECTION_LOST, errors: {}, values: { message: "Hello", cc: "", email2: "", request_key: "k-1" } });
  });

  it("passes the server's answer and its other failures through", async () => {
    const answer = { ok: true };
    expect(await keepSendOnLostAnswer(args(post({ intent: "reply" }), async () => answer))).toBe(answer);
    const redirect = new Response(null, { status: 302 });
    await expect(
      keepSendOnLostAnswer(
        args(post({ intent: "reply" }), async () => {
          throw redirect;
        }),
      ),
    ).rejects.toBe(redirect);
  });
});
