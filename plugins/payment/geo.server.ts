// The visitor's country from their IP address through the offline GeoLite2 country database that
// the geoip-country package ships (no network call). Loopback, private and unknown addresses: null.
// The database (about 10 MB in memory) is loaded on the first lookup, not when the server starts.
import { createRequire } from "node:module";

type GeoIp = { lookup(ip: string): { country: string } | null };
let geoip: GeoIp | undefined;

export function countryOfIp(ip: string | null | undefined): string | null {
  if (!ip) return null;
  const address = ip.replace(/^::ffff:/i, "");
  try {
    geoip ??= createRequire(import.meta.url)("geoip-country") as GeoIp;
    return geoip.lookup(address)?.country ?? null;
  } catch {
    return null;
  }
}
