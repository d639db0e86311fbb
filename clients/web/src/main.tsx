/** The web client: the lobby, each game's table and a finished game's history. */
import "./style.css";

import { render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

import { GamePage } from "./game.js";
import { HistoryPage } from "./history.js";
import {
  initialLang,
  LANGS,
  saveLang,
  TextsContext,
  type Lang,
} from "./i18n/index.js";
import { Lobby } from "./lobby.js";

type Route =
  { screen: "lobby" } | { screen: "game" | "history"; gameId: string };

/** The screen the address names: #/, #/game/<id> or #/history/<id>. */
function route(hash: string): Route {
  const [, screen, gameId] = hash.replace(/^#/, "").split("/");
  if ((screen === "game" || screen === "history") && gameId) {
    return { screen, gameId: decodeURIComponent(gameId) };
  }
  return { screen: "lobby" };
}

function App() {
  const [lang, setLang] = useState<Lang>(initialLang);
  const [where, setWhere] = useState(() => route(location.hash));
  const t = LANGS[lang];

  useEffect(() => {
    const follow = () => setWhere(route(location.hash));
    addEventListener("hashchange", follow);
    return () => removeEventListener("hashchange", follow);
  }, []);
  useEffect(() => saveLang(lang), [lang]);
  const opened = useRef(false);
  useEffect(() => {
    // A new screen (not the first): start reading, and tabbing, at its heading.
    if (opened.current) {
      document.querySelector<HTMLElement>("main h1")?.focus();
    }
    opened.current = true;
  }, [where]);

  const other: Lang = lang === "en" ? "de" : "en";
  return (
    <TextsContext.Provider value={t}>
      <header class="top">
        <a class="brand" href="#/">
          {t.appName}
        </a>
        <nav aria-label={t.nav.lobby}>
          <a href="#/">{t.nav.lobby}</a>
        </nav>
        <button
          type="button"
          class="lang"
          lang={other}
          aria-label={t.switchLanguageLabel}
          onClick={() => setLang(other)}
        >
          {t.switchLanguage}
        </button>
      </header>
      <main id="main">
        {where.screen === "lobby" && <Lobby />}
        {where.screen === "game" && (
          <GamePage key={where.gameId} gameId={where.gameId} />
        )}
        {where.screen === "history" && (
          <HistoryPage key={where.gameId} gameId={where.gameId} />
        )}
      </main>
    </TextsContext.Provider>
  );
}

render(<App />, document.getElementById("app")!);
