// Pieces of the public forms (new ticket, live chat registration): a labelled field with its
// error under it, and the one-message screens ('Invalid link', 'Message sent').
import { useTranslation } from "react-i18next";

/** A field: the label around the input, then the error (id `${name}-error`, for aria-describedby). */
export function PublicField({
  name,
  label,
  error,
  errorValues,
  children,
}: {
  name: string;
  label: string;
  error?: string;
  errorValues?: Record<string, string>;
  children: React.ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <>
      <label>
        {label}
        {children}
      </label>
      {error ? (
        <p className="field-error" id={`${name}-error`}>
          {t(error, errorValues)}
        </p>
      ) : null}
    </>
  );
}

/** The input's own attributes that go with PublicField: its value kept after a refused post, and its error. */
export function fieldProps(name: string, values: Record<string, string> | undefined, error: string | undefined) {
  return { name, defaultValue: values?.[name] ?? "", "aria-invalid": !!error, "aria-describedby": error ? `${name}-error` : undefined };
}

/** A page that only says one thing (status: a result announced to screen readers). */
export function MessagePage({ title, body, status }: { title: string; body: string; status?: boolean }) {
  return (
    <main className="center-page" role={status ? "status" : undefined}>
      <h1>{title}</h1>
      <p>{body}</p>
    </main>
  );
}
