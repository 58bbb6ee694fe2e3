// What the board modules' unit tests share: ctx.recent as the game page hands it to a board,
// counted by the feed's own rule (service/web/assets/feed.js), not a copy of it.

import { recentEntries } from "../../service/web/assets/feed.js";

/** The events after *seat*'s last own event (a spectator, seat null: the last seat's run), oldest
 * first, as {seq, seat, event}, without hidden events. */
export function recentOf(events, seat) {
  return recentEntries(events, seat)
    .filter((entry) => entry.event)
    .map(({ seq, seat: who, event }) => ({ seq, seat: who, event }));
}
