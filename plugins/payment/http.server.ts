// Shared by the payment routes: who may buy, where the visitor is, and the JSON guard for the
// resource routes (which Remix calls without the plugin gate and shell loaders above them).
import { json } from "@remix-run/node";
import { apiAuth } from "~/api.server";
import { currentAuth } from "~/context.server";
import { editionForHost } from "~/models/editions.server";
import { countryOfIp } from "./geo.server";
import { HOME_COUNTRY } from "./money";

export const failed = (description: string, status: number, extra: Record<string, unknown> = {}) =>
  json({ result: "failed", description, ...extra }, { status, headers: { "Cache-Control": "no-store" } });

/** The payment plugin must be on for this host; 404 otherwise, as for pages. */
export async function requirePaymentPlugin(request: Request) {
  const edition = await editionForHost(request.headers.get("Host"));
  if (!edition.enabled.includes("payment")) throw failed("Not Found", 404);
}

/** JSON twins: a _token (query, body, Bearer) or the session cookie of this same-origin page. */
export async function apiUser(request: Request, body: Record<string, unknown> = {}) {
  await requirePaymentPlugin(request);
  const auth = (await apiAuth(request, body)) ?? (await currentAuth(request));
  if (!auth) throw failed("Session expired. Please log in again.", 403);
  return auth;
}

/** The visitor's country for prices: GeoIP of the client address, home market when unknown. */
export function visitorCountry(context: unknown): string {
  const ip = (context as { clientIp?: string } | undefined)?.clientIp;
  return countryOfIp(ip) ?? HOME_COUNTRY;
}

/** This server's origin as the browser sees it (for provider return and webhook addresses). */
export function originOf(request: Request) {
  const url = new URL(request.url);
  return `${url.protocol}//${request.headers.get("Host") ?? url.host}`;
}
