import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashes with scrypt (memory-hard, in node:crypto). The encoded form keeps every
 * parameter beside the salt, `scrypt$N$r$p$salt$hash` (base64url), so that hashes made with
 * other costs keep verifying after the default changes.
 */

/** scrypt cost parameters. */
export interface ScryptParams {
  /** CPU/memory cost, a power of two. */
  N: number;
  r: number;
  p: number;
}

/**
 * Default cost: N=2^15, r=8 → 32 MiB and roughly 0.1 s a hash. Interactive logins and the
 * first Basic request of a client pay it once (then the verification cache answers); the
 * memory bound keeps a burst of parallel logins from exhausting the server.
 */
export const DEFAULT_SCRYPT_PARAMS: Readonly<ScryptParams> = Object.freeze({ N: 2 ** 15, r: 8, p: 1 });

const KEY_BYTES = 32;
const SALT_BYTES = 16;
const PREFIX = 'scrypt';

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  // Node refuses scrypt above 32 MiB unless maxmem says more; allow twice what the params need.
  const options: ScryptOptions = {
    N: params.N,
    r: params.r,
    p: params.p,
    maxmem: 256 * params.N * params.r + 1024 * 1024,
  };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** Hashes a password with a fresh random salt; returns the encoded form to store. */
export async function hashPassword(
  password: string,
  params: ScryptParams = DEFAULT_SCRYPT_PARAMS,
): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, params);
  return [PREFIX, params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join(
    '$',
  );
}

/** The parameters stored in an encoded hash, or undefined when it is not one of ours. */
export function parseHash(encoded: string): (ScryptParams & { salt: Buffer; key: Buffer }) | undefined {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== PREFIX) return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const valid = (n: number, max: number) => Number.isInteger(n) && n >= 1 && n <= max;
  if (!valid(N, 2 ** 20) || (N & (N - 1)) !== 0 || N < 2 || !valid(r, 32) || !valid(p, 16)) return undefined;
  const salt = Buffer.from(parts[4] as string, 'base64url');
  const key = Buffer.from(parts[5] as string, 'base64url');
  if (salt.length < 8 || key.length !== KEY_BYTES) return undefined;
  return { N, r, p, salt, key };
}

/**
 * True when `password` matches `encoded`. The comparison is timing-safe; a malformed hash
 * verifies nothing (but costs the same as a real one, so that it tells nothing by its speed).
 */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parsed = parseHash(encoded);
  if (parsed === undefined) {
    await derive(password, randomBytes(SALT_BYTES), DEFAULT_SCRYPT_PARAMS);
    return false;
  }
  const key = await derive(password, parsed.salt, parsed);
  return timingSafeEqual(key, parsed.key);
}
