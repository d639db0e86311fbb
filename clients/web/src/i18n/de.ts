/** Every text of the web client in German, with the keys of `en.ts`. */
import type { ColourName, KindName } from "../names.js";
import type { Texts } from "./en.js";

const FARBEN: Record<ColourName, string> = {
  red: "Rot",
  green: "Grün",
  blue: "Blau",
  orange: "Orange",
  yellow: "Gelb",
  purple: "Violett",
};

const SPIELE: Record<KindName, string> = {
  cards: "Kartenspiel",
  dice: "Würfelspiel",
  tiles: "Plättchenspiel",
};

const anzahl = (n: number, eins: string, viele: string) =>
  `${n} ${n === 1 ? eins : viele}`;

export const de: Texts = {
  lang: "de",
  appName: "Einfach Genial",
  switchLanguage: "English",
  switchLanguageLabel: "Switch to English",
  colour: (c) => FARBEN[c],
  kind: (k) => SPIELE[k],
  kindTitle: {
    cards: "Das Kartenspiel",
    dice: "Das Würfelspiel",
    tiles: "Wer zu viel riskiert, verliert!",
  },
  nav: { lobby: "Lobby" },
  connection: {
    connecting: "Verbinde…",
    live: "Live",
    reconnecting: (s) => `Verbindung verloren; neuer Versuch in ${s} s…`,
    over: "Spiel beendet",
  },
  errors: {
    corsRefused: (page, server) =>
      `Der Server ${server} erlaubt dieser Seite (${page}) keine Aufrufe (CORS). ` +
      `Trag ${page} in seine Einstellung cors_origins ein.`,
    unreachable:
      "Der Server ist nicht erreichbar. Prüf deine Verbindung; die Seite versucht es weiter.",
    notFound: "Dieses Spiel gibt es nicht (mehr).",
  },
  lobby: {
    title: "Lobby",
    yourName: "Dein Name",
    create: "Neues Spiel",
    game: "Spiel",
    seats: "Plätze",
    seat: (n) => `Platz ${n + 1}`,
    you: "du",
    open: "freier Platz",
    bot: (strength) => `Bot (${strength})`,
    strengths: { random: "zufällig", greedy: "gierig", strong: "stark" },
    whoSits: "Wer sitzt wo",
    rounds: "Runden",
    variantE: "Variante E (vor dem ersten Zug zeigt niemand Würfel)",
    sections: "Abschnitte des Wertungsblocks (Größen, mit Komma getrennt)",
    lineLength: "Reihenlänge (leer: 7, bei vier Spielern 5)",
    turnTimer: "Zeit pro Zug in Sekunden (leer: keine)",
    start: "Spiel anlegen",
    openGames: "Offene Spiele",
    allKinds: "Alle Spiele",
    noOpenGames: "Keine offenen Spiele. Leg eins an!",
    openOf: (open, seats) => `${open} von ${seats} Plätzen frei`,
    join: "Mitspielen",
    watch: "Zuschauen",
    refresh: "Aktualisieren",
    myGames: "Meine Spiele",
    noGames: "Du hast noch keine Spiele.",
    yourTurn: "Du bist dran",
    waiting: "Wartet auf Spieler",
    playing: "Läuft",
    finished: "Beendet",
    history: "Verlauf",
    forget: "Vergessen",
    options: (parts) => parts.join(", "),
    roundsOption: (n) => anzahl(n, "Runde", "Runden"),
    nameNeeded: "Gib zuerst deinen Namen ein.",
  },
  table: {
    round: (round, rounds) => `Runde ${round + 1} von ${rounds}`,
    seatOf: (name, seat) => `${name} (Platz ${seat + 1})`,
    toMove: "ist dran",
    you: "du",
    away: "abwesend (ein Bot spielt)",
    botAccount: "Bot-Konto",
    points: (n) => anzahl(n, "Siegpunkt", "Siegpunkte"),
    pointsColumn: "Siegpunkte",
    yourTurn: "Du bist dran",
    waitingFor: (name) => `Warte auf ${name}`,
    waitingForPlayers: (open) =>
      `Warte auf ${anzahl(open, "weiteren Spieler", "weitere Spieler")}`,
    spectating: "Du schaust diesem Spiel zu.",
    timer: (s) => `Noch ${s} s für diesen Zug`,
    log: "Spielverlauf",
    standings: "Endstand",
    rank: "Platz",
    player: "Spieler",
    history: "Das Spiel Zug für Zug ansehen und den Seed prüfen",
    share: "Spiel-ID (zum Mitspielen oder Zuschauen weitergeben):",
    moveFailed: (message) => `Der Zug wurde nicht gemacht: ${message}`,
    stale:
      "Das Spiel ist weitergegangen; sieh noch einmal hin und wähle deinen Zug.",
  },
  cards: {
    board: (name) => `Wertungstafel von ${name}`,
    area: (from, to) => (from === to ? `${from}` : `${from}–${to}`),
    marker: (colour, column) => `${colour} auf ${column}`,
    heldBack: (colour, column, cap) =>
      `${colour} auf ${column}, zurückgehalten: höchstens ${cap}, bis der niedrigste andere Stein aufrückt`,
    capNote:
      "Schraffierte Spalten sind vorerst nicht erreichbar (Bereichsregel).",
    openCards: (name) => `Offene Karten von ${name}`,
    hand: "Deine Hand",
    handSize: (n) => anzahl(n, "Karte auf der Hand", "Karten auf der Hand"),
    card: (a, b) => `${a}/${b}`,
    deck: (n) => `Nachziehstapel: ${n}`,
    discard: (n) => `Ablagestapel: ${n}`,
    bonus: (n) => `noch ${anzahl(n, "Bonuszug", "Bonuszüge")}`,
    playPrompt: "Spiel eine Karte: wähle sie aus deiner Hand.",
    firstPrompt: (card) =>
      `${card} spielen: welche Farbe wird zuerst gewertet?`,
    first: (colour, preview) => `${colour} zuerst: ${preview}`,
    preview: (colour, gain, to, lost) =>
      `+${gain} ${colour} (auf ${to})` +
      (lost > 0 ? `, ${lost} verfallen` : ""),
    cancel: "Andere Karte wählen",
    swapPrompt:
      "Keine Karte auf deiner Hand zeigt deine niedrigste Farbe: Hand tauschen?",
    swap: "Hand tauschen",
    keep: "Hand behalten",
  },
  dice: {
    sheet: (name) => `Wertungsblatt von ${name}`,
    section: (n) => `Abschnitt ${n + 1}`,
    locked: "gesperrt",
    row: (colour, crosses, boxes) => `${colour}: ${crosses} von ${boxes}`,
    dice: (name) => `Würfel von ${name}`,
    noDice: "noch keine Würfel",
    rerollsLeft: (n) => `noch ${anzahl(n, "Wurf", "Würfe")}`,
    roll: "Würfeln",
    reroll: (n) => `Alle Würfel neu werfen (noch ${n})`,
    joker: (colour, size) =>
      `Die ${size} ${colour}-Würfel als Joker nutzen (${anzahl(size - 1, "Kreuz", "Kreuze")} einer Farbe)`,
    jokerColour: (size) =>
      `Joker: ${anzahl(size - 1, "Kreuz", "Kreuze")} in welcher Farbe?`,
    score: (preview) => `Werten: ${preview}`,
    nothing: "nichts",
    rollPrompt: "Wirf deine Würfel.",
    decidePrompt: "Neu würfeln oder Joker wählen und werten.",
  },
  tiles: {
    centre: "Mitte",
    zone: "Sammelzone",
    emptyZone: "leer",
    reserve: (n) => `Vorrat: ${anzahl(n, "Plättchen", "Plättchen")}`,
    reveal: "Ein Plättchen aus dem Vorrat aufdecken",
    take: (n) => `Sammelzone und passende Plättchen der Mitte nehmen (${n})`,
    alternative: (colour) =>
      `Alternativzug: ein Plättchen ${colour} aus der Mitte nehmen`,
    collection: (name) => `Sammlung von ${name}`,
    count: (colour, n, line) => `${colour}: ${n} von ${line}`,
    line: "Reihe",
    lineLength: (n) => `Eine Reihe hat ${n} Plättchen`,
    bonus: (n) => `noch ${anzahl(n, "Bonuszug", "Bonuszüge")}`,
    startPrompt: "Deck ein Plättchen auf oder mach den Alternativzug.",
    decidePrompt: "Noch ein Plättchen aufdecken oder nehmen.",
  },
  events: {
    joined: (name, seat) => `${name} setzt sich auf Platz ${seat + 1}.`,
    started: "Alle Plätze sind besetzt: das Spiel beginnt.",
    timedOut: (name) =>
      `${name} hat die Zeit überschritten; ein Bot spielt für sie/ihn.`,
    reclaimed: (name) => `${name} ist zurück.`,
    roundOver: (round, results) => `Runde ${round + 1} ist vorbei: ${results}.`,
    result: (name, points) => `${name} ${points}`,
    gameOver: (winners) => `Das Spiel ist vorbei. Gewonnen: ${winners}.`,
    cardsDeal: (round, first) =>
      `Runde ${round + 1} ist gegeben; ${first} beginnt.`,
    cardsDraw: (name, n) => `${name} zieht ${anzahl(n, "Karte", "Karten")}.`,
    cardsReshuffle: (n) =>
      `Der Ablagestapel wird zum neuen Nachziehstapel gemischt (${n}).`,
    cardsPlay: (name, card, first, scores) =>
      `${name} spielt ${card}, ${first} zuerst: ${scores}.`,
    cardsScore: (gain, colour, to, lost) =>
      `+${gain} ${colour} (auf ${to})` +
      (lost > 0 ? ` (${lost} verfallen durch die Bereichsregel)` : ""),
    cardsBonus: (n) => ` ${anzahl(n, "Bonuszug", "Bonuszüge")}!`,
    cardsBonusLapsed: (name, n) =>
      `${name} hat keine Karte mehr: ${anzahl(n, "Bonuszug verfällt", "Bonuszüge verfallen")}.`,
    cardsSwap: (name, cards) => `${name} zeigt und tauscht die Hand: ${cards}.`,
    cardsKeep: (name) => `${name} behält die Hand.`,
    diceSetup: (round, first) => `Runde ${round + 1}: ${first} beginnt.`,
    diceRoll: (name, dice, reroll, left) =>
      `${name} ${reroll ? "würfelt neu" : "würfelt"}: ${dice} (noch ${anzahl(left, "Wurf", "Würfe")}).`,
    diceScore: (name, crosses, jokers, lost) =>
      `${name} wertet ${crosses}${jokers}${lost}.`,
    diceJokers: (jokers) => ` mit ${jokers}`,
    diceJoker: (group, colour) =>
      `den ${group}-Würfeln als Joker für ${colour}`,
    diceLost: (lost) => ` (verfallen: ${lost})`,
    tilesSetup: (round, first) => `Runde ${round + 1}: ${first} beginnt.`,
    tilesRefill: (colours) => `Die Mitte wird aufgefüllt: ${colours}.`,
    tilesReveal: (name, colour, outcome) =>
      `${name} deckt ${colour} auf: ` +
      {
        success: "Treffer!",
        no_match: "kein Treffer, der Zug endet.",
        conflict: "Konflikt, der Zug endet.",
      }[outcome],
    tilesTake: (name, tiles) => `${name} nimmt ${tiles}.`,
    tilesAlternative: (name, colour) =>
      `${name} nimmt ein Plättchen ${colour} aus der Mitte.`,
    tilesBonus: (name, colours) =>
      `${name} vollendet eine Reihe ${colours}: ein Bonuszug!`,
    tilesReturn: (name, tiles) => `${name} legt ${tiles} in den Vorrat zurück.`,
    tilesPass: (name) => `${name} kann nicht ziehen und passt.`,
    tilesTurnEnd: (name) => `Der Zug von ${name} endet.`,
    none: "nichts",
    and: " und ",
  },
  history: {
    title: "Verlauf",
    step: (n, total) => `Zug ${n} von ${total}`,
    start: "Anfang",
    previous: "Voriger Zug",
    next: "Nächster Zug",
    end: "Ende",
    automatic: "von einem Bot oder der Zugzeit gespielt",
    fairness: "Fairness-Prüfung",
    fairnessText:
      "Beim Anlegen des Spiels hat der Dienst den SHA-256 seines geheimen Seeds veröffentlicht. " +
      "Jetzt, da das Spiel vorbei ist, ist der Seed offen, und diese Seite berechnet den Hash selbst.",
    published: "Beim Anlegen veröffentlichter SHA-256",
    seenHere: (when) => `von diesem Browser gesehen am ${when}`,
    seed: "Offengelegter Seed",
    computed: "SHA-256 des Seeds, hier berechnet",
    verified:
      "Bestätigt: der Seed ist der, auf den sich das Spiel beim Anlegen festgelegt hat.",
    mismatch:
      "Abweichung: der offengelegte Seed ist NICHT der beim Anlegen festgelegte!",
    notOver: "Der Seed wird offengelegt, wenn das Spiel vorbei ist.",
    noCrypto:
      "Dieser Browser kann hier nicht hashen (WebCrypto braucht HTTPS oder localhost).",
    backToTable: "Zurück zum Tisch",
  },
};
