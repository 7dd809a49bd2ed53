/** `dropflow/accounts`: the supplier accounts' registry, as `dropflow account …` edits it. */
export { addAccount, listAccounts, removeAccount, setTier } from './registryEdits.js';
export { staticAccountDirectory } from './staticDirectory.js';
export { addStore, mapSkus, type StoreInput } from './storeEdits.js';
