// The knowledge base's vocabulary and limits, shared by the server and the pages.
export const KB_TYPES = ["kb", "manual"] as const;
export type KbType = (typeof KB_TYPES)[number];
export const KB_LANGS = ["en", "ms", "zh", "ja", "ko"] as const;
export type KbLang = (typeof KB_LANGS)[number];
export const KB_VISIBILITIES = ["public", "internal"] as const;
export type KbVisibility = (typeof KB_VISIBILITIES)[number];

export const TITLE_MAX = 200;
export const CATEGORY_MAX = 80;
export const SUMMARY_MAX = 300;
export const BODY_MAX = 100_000;
export const QUERY_MAX = 200;
/** An article's image: at most 2 MB, of these types. */
export const IMAGE_MAX_BYTES = 2 * 1024 * 1024;
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
export const PAGE_SIZE = 20;
/** A draft handed to the reply box (?draft=) is cut here. */
export const DRAFT_MAX = 20_000;

export const ARTICLE_FIELDS = ["type", "lang", "category", "title", "summary", "body", "visibility"] as const;

/** The {question} part of a public address: the title's words, lower case, joined by dashes. */
export function slugOf(title: string) {
  return (
    title
      .toLowerCase()
      .normalize("NFKC")
      .replace(/[^\p{L}\p{N}]+/gu, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 80) || "article"
  );
}

/** An article's public address: /support/{type}/{lang}/{id}/{question}. */
export function publicPath(a: { id: number; type: string; lang: string; title: string }) {
  return `/support/${a.type}/${a.lang}/${a.id}/${encodeURIComponent(slugOf(a.title))}`;
}

export const isType = (v: string | undefined): v is KbType => KB_TYPES.includes(v as KbType);
export const isLang = (v: string | undefined): v is KbLang => KB_LANGS.includes(v as KbLang);
