/** `dropflow/session`: supplier access tokens from an account's session workflow, as workers use. */
export { SessionTokenSource } from './sessionTokens.js';
