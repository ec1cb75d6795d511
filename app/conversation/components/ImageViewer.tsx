// The image viewer (spec section 2): image messages and image attachments open over the
// conversation. Without JavaScript each image is a plain link to its file; with it the link opens
// the viewer: Escape closes, the arrow keys (or a swipe) go to the previous and next image of the
// conversation, focus stays inside and returns to the image that opened it.
import { useEffect, useId, useRef, useState, type MouseEvent, type PointerEvent, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { proxy, snapshot, useSnapshot } from "valtio";
import { useDialogFocus } from "~/components/dialog-focus";

export interface ViewerImage {
  messageId: number;
  url: string;
  name: string;
  sender: string;
}

/** A horizontal move of at least this many pixels is a swipe. */
const SWIPE_PX = 50;

const viewer = proxy({ open: null as number | null });

/** The link around an image: its file without JavaScript, the viewer with it. */
export function ImageLink({ image, className, children }: { image: ViewerImage; className?: string; children: ReactNode }) {
  const { t } = useTranslation();
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    // a new tab or a download (modifier keys) keeps the browser's own behaviour
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    viewer.open = image.messageId;
  };
  return (
    <a
      href={image.url}
      className={className}
      onClick={onClick}
      data-image-link={image.messageId}
      aria-haspopup="dialog"
      title={t("imageViewer.open", { name: image.name })}
    >
      {children}
    </a>
  );
}

/** The viewer itself, once per conversation, over its images in the order shown. */
export function ImageViewer({ images }: { images: ViewerImage[] }) {
  const snap = typeof document === "undefined" ? snapshot(viewer) : useSnapshot(viewer);
  const index = images.findIndex((i) => i.messageId === snap.open);
  if (index < 0) return null;
  return <ViewerDialog images={images} index={index} />;
}

function ViewerDialog({ images, index }: { images: ViewerImage[]; index: number }) {
  const { t } = useTranslation();
  const titleId = useId();
  const ref = useRef<HTMLElement>(null);
  const start = useRef<{ x: number; y: number } | null>(null);
  const [moved, setMoved] = useState(0);
  const image = images[index];
  const close = () => (viewer.open = null);
  const go = (step: number) => {
    const next = images[index + step];
    if (next) viewer.open = next.messageId;
  };
  useDialogFocus(ref, close);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "ArrowLeft") go(-1);
      else if (e.key === "ArrowRight") go(1);
      else return;
      e.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  });
  const onPointerDown = (e: PointerEvent) => {
    start.current = { x: e.clientX, y: e.clientY };
    setMoved(0);
  };
  const onPointerMove = (e: PointerEvent) => {
    if (start.current) setMoved(e.clientX - start.current.x);
  };
  const onPointerUp = (e: PointerEvent) => {
    const from = start.current;
    start.current = null;
    setMoved(0);
    if (!from) return;
    const dx = e.clientX - from.x;
    // a mostly horizontal move: right shows the previous image, left the next
    if (Math.abs(dx) >= SWIPE_PX && Math.abs(dx) > Math.abs(e.clientY - from.y)) go(dx > 0 ? -1 : 1);
  };
  return (
    <div
      className="modal-backdrop image-viewer-backdrop"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) close();
      }}
    >
      <section ref={ref} className="image-viewer" role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1}>
        <header className="image-viewer-head">
          <h2 id={titleId}>
            {t("imageViewer.title", { name: image.name, n: index + 1, total: images.length })}
            <span className="muted"> · {image.sender}</span>
          </h2>
          <button type="button" className="icon-button" onClick={close} aria-label={t("imageViewer.close")} data-autofocus>
            ×
          </button>
        </header>
        <div
          className="image-viewer-stage"
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerUp}
          onPointerCancel={() => ((start.current = null), setMoved(0))}
        >
          <img src={image.url} alt={image.name} draggable={false} style={moved ? { transform: `translateX(${moved}px)` } : undefined} />
        </div>
        <footer className="image-viewer-foot">
          <button type="button" className="button" onClick={() => go(-1)} aria-disabled={index === 0}>
            {t("imageViewer.previous")}
          </button>
          <a href={image.url} download={image.name} className="button">
            {t("imageViewer.download")}
          </a>
          <button type="button" className="button" onClick={() => go(1)} aria-disabled={index === images.length - 1}>
            {t("imageViewer.next")}
          </button>
        </footer>
        <p className="sr-only" aria-live="polite">
          {t("imageViewer.position", { n: index + 1, total: images.length })}
        </p>
      </section>
    </div>
  );
}
