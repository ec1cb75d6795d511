// The product's public address as providers reach it, for tests of channels that hand out files by
// URL (LINE, Facebook comments): the real signed-file route (/hooks/channels/files/...) and the app's
// public folder (LINE's video preview), on a port of their own. Set BASE_URL to `url`.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { loader } from "@plugins/channels/routes/public-file";

export async function startPublicFilesDoor() {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const signed = /^\/hooks\/channels\/files\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (signed) {
      const answer = await loader({ request: new Request(url), params: { token: signed[1], name: signed[2] }, context: {} as never });
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      return res.end(Buffer.from(await answer.arrayBuffer()));
    }
    const file = path.join(process.cwd(), "public", path.normalize(url.pathname).replace(/^(\.\.[/\\])+/, ""));
    if (url.pathname.startsWith("/channels/") && fs.existsSync(file)) {
      res.writeHead(200, { "content-type": "image/png" });
      return res.end(fs.readFileSync(file));
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
