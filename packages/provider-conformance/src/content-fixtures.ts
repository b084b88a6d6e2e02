import { Buffer } from 'node:buffer';

/** A 1×1 PNG, base64: a real image, so an adapter that checks the data finds a valid one. */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** A minimal one-catalog PDF, base64. */
export const TINY_PDF_BASE64 =
  'JVBERi0xLjQKMSAwIG9iaiA8PC9UeXBlIC9DYXRhbG9nIC9QYWdlcyAyIDAgUj4+IGVuZG9iagoyIDAgb2JqIDw8L1R5cGUgL1BhZ2VzIC9LaWRzIFtdIC9Db3VudCAwPj4gZW5kb2JqCnRyYWlsZXIgPDwvUm9vdCAxIDAgUj4+CiUlRU9GCg==';

/** A PNG of exactly `bytes` decoded bytes (the 1×1 image followed by zeros), base64. */
export function pngOfBytes(bytes: number): string {
  const image = Buffer.from(TINY_PNG_BASE64, 'base64');
  const padded = Buffer.alloc(Math.max(bytes, image.length));
  image.copy(padded);
  return padded.toString('base64');
}
