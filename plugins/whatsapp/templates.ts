// What the template page and the send job share about WhatsApp templates (client-safe).

export interface Template {
  name: string;
  language: string;
  category: string;
  /** The header's text (shown to the agent), if the template has a text header without values. */
  header: string;
  /** The body with its {{1}}, {{2}}, ... placeholders. */
  body: string;
  footer: string;
  /** How many values the body takes. */
  params: number;
}

/** A body's numbered values: {{1}}, {{2}}, ... */
export const PLACEHOLDER = /\{\{\s*(\d+)\s*\}\}/g;

export const templateId = (t: { name: string; language: string }) => `${t.name}:${t.language}`;

/** The body as the customer will read it. */
export const renderTemplate = (t: Pick<Template, "body">, values: string[]) => t.body.replace(PLACEHOLDER, (whole, n) => values[Number(n) - 1] ?? whole);

/** The form's names of a template's values: v1, v2, ... */
export const valueField = (n: number) => `v${n}`;
