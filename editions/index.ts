// The edition files. The default edition must stay last: it answers any host.
import support from "./support";
import callcentre from "./callcentre";
import trading from "./trading";
import defaultEdition from "./default";
export type { Edition } from "./types";

export const editionFiles = [support, callcentre, trading, defaultEdition];
