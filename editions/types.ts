/** Product variants; the menu rules of spec section 6 look at them. */
export const VARIANTS = ["support", "call", "trading", "default"] as const;

/** An edition is data: which hosts it answers, its product title and the plugins it enables. */
export interface Edition {
  id: string;
  title: string;
  /** Host patterns: "support.*" matches support.example.com and support.localhost. */
  hosts: string[];
  /** Product variant the menu rules of spec section 6 look at. */
  variant: (typeof VARIANTS)[number];
  plugins: string[];
  /** Menu item ids hidden until the user shows them in edit mode. */
  hiddenByDefault: string[];
}

export const defineEdition = (edition: Edition) => edition;
