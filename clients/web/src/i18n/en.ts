/** Every text of the web client in English. `de.ts` has the same keys in German. */
import type { ColourName, KindName } from "../names.js";

const COLOURS: Record<ColourName, string> = {
  red: "red",
  green: "green",
  blue: "blue",
  orange: "orange",
  yellow: "yellow",
  purple: "purple",
};

const KINDS: Record<KindName, string> = {
  cards: "card game",
  dice: "dice game",
  tiles: "tile game",
};

const plural = (n: number, one: string, many: string) =>
  `${n} ${n === 1 ? one : many}`;

export const en = {
  lang: "en",
  appName: "Einfach Genial",
  switchLanguage: "Deutsch",
  switchLanguageLabel: "Auf Deutsch umschalten",
  colour: (c: ColourName) => COLOURS[c],
  kind: (k: KindName) => KINDS[k],
  kindTitle: {
    cards: "Das Kartenspiel",
    dice: "Das Würfelspiel",
    tiles: "Wer zu viel riskiert, verliert!",
  } as Record<KindName, string>,
  nav: { lobby: "Lobby" },
  connection: {
    connecting: "Connecting…",
    live: "Live",
    reconnecting: (seconds: number) =>
      `Connection lost; trying again in ${seconds} s…`,
    over: "Game over",
  },
  errors: {
    corsRefused: (page: string, server: string) =>
      `The server ${server} does not allow this page (${page}) to call it (CORS). ` +
      `Add ${page} to the server's cors_origins setting.`,
    unreachable:
      "The server cannot be reached. Check your connection; the page keeps trying.",
    notFound: "There is no such game (it may have expired).",
  },
  lobby: {
    title: "Lobby",
    yourName: "Your name",
    create: "New game",
    game: "Game",
    seats: "Seats",
    seat: (n: number) => `Seat ${n + 1}`,
    you: "you",
    open: "open seat",
    bot: (strength: string) => `${strength} bot`,
    strengths: {
      random: "random",
      greedy: "greedy",
      strong: "strong",
    } as Record<string, string>,
    whoSits: "Who sits where",
    rounds: "Rounds",
    variantE: "Variant E (nobody shows dice before the first turn)",
    sections: "Score sheet sections (sizes, comma-separated)",
    lineLength: "Line length (empty: 7, or 5 with four players)",
    turnTimer: "Turn timer in seconds (empty: none)",
    start: "Create game",
    openGames: "Open games",
    allKinds: "All games",
    noOpenGames: "No open games. Create one!",
    openOf: (open: number, seats: number) => `${open} of ${seats} seats open`,
    join: "Join",
    watch: "Watch",
    refresh: "Refresh",
    myGames: "My games",
    noGames: "You have no games yet.",
    yourTurn: "Your turn",
    waiting: "Waiting for players",
    playing: "Playing",
    finished: "Finished",
    history: "History",
    forget: "Forget",
    options: (parts: string[]) => parts.join(", "),
    roundsOption: (n: number) => plural(n, "round", "rounds"),
    nameNeeded: "Enter your name first.",
  },
  table: {
    round: (round: number, rounds: number) => `Round ${round + 1} of ${rounds}`,
    seatOf: (name: string, seat: number) => `${name} (seat ${seat + 1})`,
    toMove: "to move",
    you: "you",
    away: "away (played by a bot)",
    botAccount: "bot account",
    points: (n: number) => plural(n, "victory point", "victory points"),
    pointsColumn: "Victory points",
    yourTurn: "Your turn",
    waitingFor: (name: string) => `Waiting for ${name}`,
    waitingForPlayers: (open: number) =>
      `Waiting for ${plural(open, "more player", "more players")}`,
    spectating: "You are watching this game.",
    timer: (seconds: number) => `${seconds} s left for this turn`,
    log: "What happened",
    standings: "Final standings",
    rank: "Rank",
    player: "Player",
    history: "Step through the game and check its seed",
    share: "Game id (give it to a friend to join or watch):",
    moveFailed: (message: string) => `The move was not made: ${message}`,
    stale: "The game moved on; look again and choose your move.",
  },
  cards: {
    board: (name: string) => `${name}'s score board`,
    area: (from: number, to: number) =>
      from === to ? `${from}` : `${from}–${to}`,
    marker: (colour: string, column: number) => `${colour} at ${column}`,
    heldBack: (colour: string, column: number, cap: number) =>
      `${colour} at ${column}, held back: at most ${cap} until the lowest other marker moves up`,
    capNote: "Hatched columns are out of reach for now (the area rule).",
    openCards: (name: string) => `${name}'s open cards`,
    hand: "Your hand",
    handSize: (n: number) => plural(n, "card in hand", "cards in hand"),
    card: (a: string, b: string) => `${a}/${b}`,
    deck: (n: number) => `Draw pile: ${n}`,
    discard: (n: number) => `Discard pile: ${n}`,
    bonus: (n: number) => plural(n, "bonus play", "bonus plays") + " to make",
    playPrompt: "Play a card: choose one from your hand.",
    firstPrompt: (card: string) => `Play ${card}: which colour scores first?`,
    first: (colour: string, preview: string) => `${colour} first: ${preview}`,
    preview: (colour: string, gain: number, to: number, lost: number) =>
      `+${gain} ${colour} (to ${to})` + (lost > 0 ? `, ${lost} lost` : ""),
    cancel: "Choose another card",
    swapPrompt:
      "No card in your hand shows your lowest colour: swap your hand?",
    swap: "Swap my hand",
    keep: "Keep my hand",
  },
  dice: {
    sheet: (name: string) => `${name}'s score sheet`,
    section: (n: number) => `section ${n + 1}`,
    locked: "locked",
    row: (colour: string, crosses: number, boxes: number) =>
      `${colour}: ${crosses} of ${boxes}`,
    dice: (name: string) => `${name}'s dice`,
    noDice: "no dice yet",
    rerollsLeft: (n: number) => plural(n, "reroll", "rerolls") + " left",
    roll: "Roll the dice",
    reroll: (n: number) => `Roll all dice again (${n} left)`,
    joker: (colour: string, size: number) =>
      `Use the ${size} ${colour} dice as a joker (${plural(size - 1, "cross", "crosses")} of one colour)`,
    jokerColour: (size: number) =>
      `Joker: ${plural(size - 1, "cross", "crosses")} in which colour?`,
    score: (preview: string) => `Score: ${preview}`,
    nothing: "nothing",
    rollPrompt: "Roll your dice.",
    decidePrompt: "Roll again, or choose jokers and score.",
  },
  tiles: {
    centre: "Centre",
    zone: "Collection zone",
    emptyZone: "empty",
    reserve: (n: number) => `Reserve: ${plural(n, "tile", "tiles")}`,
    reveal: "Reveal a tile from the reserve",
    take: (n: number) =>
      `Take the zone and matching centre tiles (${plural(n, "tile", "tiles")})`,
    alternative: (colour: string) =>
      `Alternative move: take one ${colour} tile from the centre`,
    collection: (name: string) => `${name}'s collection`,
    count: (colour: string, n: number, line: number) =>
      `${colour}: ${n} of ${line}`,
    line: "line",
    lineLength: (n: number) => `A line is ${plural(n, "tile", "tiles")}`,
    bonus: (n: number) => plural(n, "bonus move", "bonus moves") + " to make",
    startPrompt: "Reveal a tile, or make the alternative move.",
    decidePrompt: "Reveal another tile, or take.",
  },
  events: {
    joined: (name: string, seat: number) => `${name} takes seat ${seat + 1}.`,
    started: "Every seat is taken: the game begins.",
    timedOut: (name: string) =>
      `${name} ran out of time; a bot plays for them.`,
    reclaimed: (name: string) => `${name} is back.`,
    roundOver: (round: number, results: string) =>
      `Round ${round + 1} is over: ${results}.`,
    result: (name: string, points: number) => `${name} ${points}`,
    gameOver: (winners: string) => `The game is over. Winner: ${winners}.`,
    cardsDeal: (round: number, first: string) =>
      `Round ${round + 1} is dealt; ${first} starts.`,
    cardsDraw: (name: string, n: number) =>
      `${name} draws ${plural(n, "card", "cards")}.`,
    cardsReshuffle: (n: number) =>
      `The discard pile is shuffled into a new draw pile (${n}).`,
    cardsPlay: (name: string, card: string, first: string, scores: string) =>
      `${name} plays ${card}, ${first} first: ${scores}.`,
    cardsScore: (gain: number, colour: string, to: number, lost: number) =>
      `+${gain} ${colour} (to ${to})` +
      (lost > 0 ? ` (${lost} lost to the area rule)` : ""),
    cardsBonus: (n: number) =>
      ` ${plural(n, "bonus play", "bonus plays")} to make!`,
    cardsBonusLapsed: (name: string, n: number) =>
      `${name} has no card left: ${plural(n, "bonus play lapses", "bonus plays lapse")}.`,
    cardsSwap: (name: string, cards: string) =>
      `${name} shows and swaps their hand: ${cards}.`,
    cardsKeep: (name: string) => `${name} keeps their hand.`,
    diceSetup: (round: number, first: string) =>
      `Round ${round + 1}: ${first} starts.`,
    diceRoll: (name: string, dice: string, reroll: boolean, left: number) =>
      `${name} ${reroll ? "rolls again" : "rolls"}: ${dice} (${plural(left, "reroll", "rerolls")} left).`,
    diceScore: (name: string, crosses: string, jokers: string, lost: string) =>
      `${name} scores ${crosses}${jokers}${lost}.`,
    diceJokers: (jokers: string) => ` with ${jokers}`,
    diceJoker: (group: string, colour: string) =>
      `the ${group} dice as a joker for ${colour}`,
    diceLost: (lost: string) => ` (lost: ${lost})`,
    tilesSetup: (round: number, first: string) =>
      `Round ${round + 1}: ${first} starts.`,
    tilesRefill: (colours: string) => `The centre is filled up: ${colours}.`,
    tilesReveal: (
      name: string,
      colour: string,
      outcome: "success" | "no_match" | "conflict",
    ) =>
      `${name} reveals ${colour}: ` +
      {
        success: "a match!",
        no_match: "no match, the turn ends.",
        conflict: "a conflict, the turn ends.",
      }[outcome],
    tilesTake: (name: string, tiles: string) => `${name} takes ${tiles}.`,
    tilesAlternative: (name: string, colour: string) =>
      `${name} takes one ${colour} tile from the centre.`,
    tilesBonus: (name: string, colours: string) =>
      `${name} completes a line of ${colours}: a bonus move!`,
    tilesReturn: (name: string, tiles: string) =>
      `${name} returns ${tiles} to the reserve.`,
    tilesPass: (name: string) => `${name} cannot move and passes.`,
    tilesTurnEnd: (name: string) => `${name}'s turn ends.`,
    none: "nothing",
    and: " and ",
  },
  history: {
    title: "History",
    step: (n: number, total: number) => `Move ${n} of ${total}`,
    start: "Start",
    previous: "Previous move",
    next: "Next move",
    end: "End",
    automatic: "played by a bot or the turn timer",
    fairness: "Fairness check",
    fairnessText:
      "When the game was created, the service published the SHA-256 of its secret seed. " +
      "Now that the game is over the seed is revealed, and this page hashes it itself.",
    published: "SHA-256 published at creation",
    seenHere: (when: string) => `seen by this browser on ${when}`,
    seed: "Revealed seed",
    computed: "SHA-256 of the seed, computed here",
    verified: "Verified: the seed is the one committed to at creation.",
    mismatch:
      "Mismatch: the revealed seed is NOT the one committed to at creation!",
    notOver: "The seed is revealed when the game is over.",
    noCrypto:
      "This browser cannot hash here (WebCrypto needs HTTPS or localhost).",
    backToTable: "Back to the table",
  },
};

export type Texts = typeof en;
