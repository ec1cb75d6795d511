// The visitor's country from their IP address through the offline GeoLite2 country database that
// the geoip-country package ships (no network call). Loopback, private and unknown addresses: null.
import geoip from "geoip-country";

export function countryOfIp(ip: string | null | undefined): string | null {
  if (!ip) return null;
  const address = ip.replace(/^::ffff:/i, "");
  try {
    return geoip.lookup(address)?.country ?? null;
  } catch {
    return null;
  }
}
