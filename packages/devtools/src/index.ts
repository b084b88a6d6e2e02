export {
  DEVTOOLS_USAGE,
  type DevtoolsCliArguments,
  parseDevtoolsArguments,
} from './cli-arguments.js';
export {
  type DevtoolsListener,
  type DevtoolsListenerOptions,
  devtoolsListener,
} from './devtools-listener.js';
export {
  DEFAULT_DEVTOOLS_DIR,
  DEFAULT_MAX_RECORD_BYTES,
  DEFAULT_MAX_STRING_BYTES,
  DEVTOOLS_RECORD_VERSION,
  type DevtoolsRecord,
  type ModelRequestEvent,
  RECORD_FILE_SUFFIX,
} from './devtools-record.js';
export {
  DEFAULT_DEVTOOLS_PORT,
  type DevtoolsServer,
  type DevtoolsServerOptions,
  startDevtoolsServer,
} from './devtools-server.js';
export { DevtoolsOptionError } from './errors.js';
export { type DevtoolsRow, readRow } from './record-rows.js';
export { RecordTail } from './record-tail.js';
