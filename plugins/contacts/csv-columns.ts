// The CSV columns of the contacts import and export, in order (client-safe: the import page names them).
export const CSV_COLUMNS = ["name", "salutation", "email", "phone", "id_type", "id_number"] as const;
