/** Every supplier endpoint by operation name. */
import * as auth from './auth.js';

export const endpoints = {
  getAccessToken: auth.getAccessToken,
  refreshAccessToken: auth.refreshAccessToken,
  logout: auth.logout,
} as const;
