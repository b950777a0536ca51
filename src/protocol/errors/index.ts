export { ERROR_CATALOG, isErrorCode, type ErrorCode, type ErrorSpec } from './catalog.js';
export { BerthError, asBerthError, isBerthError, type ErrorDetails } from './berth-error.js';
