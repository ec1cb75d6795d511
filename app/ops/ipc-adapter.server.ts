// Realtime events from job worker processes without Redis (ADR 050): a socket.io cluster adapter
// over the IPC channel between the web node and the workers it forked (JOB_WORKERS). A worker's
// io has no sockets; what a job publishes (io.to(room).emit, fetchSockets for the notice filters,
// socketsLeave) travels to the web node, which holds the browsers' sockets, as it would between
// nodes over Redis. socket.io-adapter's ClusterAdapterWithHeartbeat does the protocol (who is
// there, requests and their answers); this file only carries its messages.
import type { ChildProcess } from "node:child_process";
import { ClusterAdapterWithHeartbeat, type ClusterMessage, type ClusterResponse } from "socket.io-adapter";

const TAG = "omnidesk:io";

interface Envelope {
  tag: typeof TAG;
  message?: ClusterMessage;
  response?: ClusterResponse;
}

const isEnvelope = (value: unknown): value is Envelope => (value as Envelope | null)?.tag === TAG;

/** Where an adapter's messages go and come from. */
export interface IpcLink {
  send(envelope: Envelope): void;
  listen(handler: (envelope: Envelope) => void): void;
}

/** A worker's link: to its parent, the web node. */
export function parentLink(): IpcLink {
  return {
    send: (envelope) => void process.send?.(envelope),
    listen: (handler) => void process.on("message", (value) => isEnvelope(value) && handler(value)),
  };
}

/** The web node's link: a star over its workers; what one worker sends, the others hear too. */
export function childrenLink() {
  const children = new Set<ChildProcess>();
  const handlers = new Set<(envelope: Envelope) => void>();
  const sendTo = (child: ChildProcess, envelope: Envelope) => {
    if (child.connected) child.send(envelope, (error) => void error);
  };
  return {
    send: (envelope: Envelope) => children.forEach((child) => sendTo(child, envelope)),
    listen: (handler: (envelope: Envelope) => void) => void handlers.add(handler),
    /** A worker joins: its messages reach this node's adapters and the other workers. */
    add(child: ChildProcess) {
      children.add(child);
      child.on("message", (value) => {
        if (!isEnvelope(value)) return;
        handlers.forEach((handler) => handler(value));
        for (const other of children) if (other !== child) sendTo(other, value);
      });
      child.once("exit", () => children.delete(child));
    },
  } satisfies IpcLink & { add(child: ChildProcess): void };
}

class IpcAdapter extends ClusterAdapterWithHeartbeat {
  constructor(
    nsp: { name: string },
    private readonly link: IpcLink,
  ) {
    super(nsp, {});
    link.listen((envelope) => {
      // every namespace has its adapter on the one link: each takes its own
      if (envelope.message?.nsp === nsp.name) this.onMessage(envelope.message);
      else if (envelope.response?.nsp === nsp.name) this.onResponse(envelope.response);
    });
  }
  protected doPublish(message: ClusterMessage) {
    this.link.send({ tag: TAG, message });
    return Promise.resolve("");
  }
  // answers go to every node: only the asker has the request open, the others drop it
  protected doPublishResponse(_requesterUid: string, response: ClusterResponse) {
    this.link.send({ tag: TAG, response });
    return Promise.resolve();
  }
}

/** For io.adapter(): every namespace's adapter on this link. */
export function ipcAdapter(link: IpcLink) {
  return class extends IpcAdapter {
    constructor(nsp: { name: string }) {
      super(nsp, link);
    }
  };
}
