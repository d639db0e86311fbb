/** The language of the page: English or German, chosen by the switch or the browser's. */
import { createContext } from "preact";
import { useContext } from "preact/hooks";

import { de } from "./de.js";
import { en, type Texts } from "./en.js";

export type { Texts } from "./en.js";
export type Lang = "en" | "de";

export const LANGS: Record<Lang, Texts> = { en, de };
const KEY = "genial.lang";

/** The language last chosen here, else the browser's first that we have. */
export function initialLang(): Lang {
  const stored = localStorage.getItem(KEY);
  if (stored === "en" || stored === "de") {
    return stored;
  }
  const known = navigator.languages.find((l) => /^(en|de)\b/i.test(l));
  return known?.toLowerCase().startsWith("de") ? "de" : "en";
}

export function saveLang(lang: Lang): void {
  localStorage.setItem(KEY, lang);
  document.documentElement.lang = lang;
}

export const TextsContext = createContext<Texts>(en);

export function useTexts(): Texts {
  return useContext(TextsContext);
}
