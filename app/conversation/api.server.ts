// The conversation's JSON twins answer its errors as the pages do.
import { json } from "@remix-run/node";
import { AccessDenied } from "~/conversation/access.server";
import { NotFound } from "~/conversation/model.server";

/** Runs a JSON twin, answering 403 'Access denied' / 404 as the pages do. */
export async function jsonErrors<T>(fn: () => Promise<T>): Promise<T | Response> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof AccessDenied) return json({ result: "failed", description: "Access denied", message: error.message }, { status: 403 });
    if (error instanceof NotFound) return json({ result: "failed", description: "Ticket not found." }, { status: 404 });
    throw error;
  }
}
