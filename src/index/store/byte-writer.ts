const encoder = new TextEncoder();

/**
 * A growable byte buffer with the primitives of our file formats: variable-length
 * integers (7 bits a byte, low bits first, as Lucene's VInt), little-endian fixed
 * integers and doubles, and length-prefixed UTF-8 strings.
 */
export class ByteWriter {
  private bytes: Uint8Array;
  private view: DataView;
  length = 0;

  constructor(initialCapacity = 1024) {
    this.bytes = new Uint8Array(initialCapacity);
    this.view = new DataView(this.bytes.buffer);
  }

  /** The bytes written so far (a view, valid until the next write). */
  view0(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  /** A copy of the bytes written so far. */
  toBytes(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }

  reset(): void {
    this.length = 0;
  }

  writeByte(value: number): void {
    if (this.length === this.bytes.length) this.grow(1);
    this.bytes[this.length++] = value;
  }

  /** Non-negative integer up to 2^53. */
  writeVInt(value: number): void {
    if (this.length + 8 > this.bytes.length) this.grow(8);
    const bytes = this.bytes;
    let at = this.length;
    if (value < 0x80000000) {
      while (value > 0x7f) {
        bytes[at++] = (value & 0x7f) | 0x80;
        value >>>= 7;
      }
      bytes[at++] = value;
      this.length = at;
      return;
    }
    // Beyond 31 bits shifts would overflow: fall back to arithmetic.
    if (this.length + 10 > this.bytes.length) this.grow(10);
    while (value > 0x7f) {
      bytes[at++] = (value % 128) | 0x80;
      value = Math.floor(value / 128);
    }
    bytes[at++] = value;
    this.length = at;
  }

  writeUint32(value: number): void {
    if (this.length + 4 > this.bytes.length) this.grow(4);
    this.view.setUint32(this.length, value, true);
    this.length += 4;
  }

  writeFloat32(value: number): void {
    if (this.length + 4 > this.bytes.length) this.grow(4);
    this.view.setFloat32(this.length, value, true);
    this.length += 4;
  }

  writeFloat64(value: number): void {
    if (this.length + 8 > this.bytes.length) this.grow(8);
    this.view.setFloat64(this.length, value, true);
    this.length += 8;
  }

  writeBytes(value: Uint8Array): void {
    if (this.length + value.length > this.bytes.length) this.grow(value.length);
    this.bytes.set(value, this.length);
    this.length += value.length;
  }

  /** Length-prefixed UTF-8. */
  writeString(value: string): void {
    if (isShortAscii(value)) {
      this.writeVInt(value.length);
      if (this.length + value.length > this.bytes.length) this.grow(value.length);
      for (let i = 0; i < value.length; i++) this.bytes[this.length++] = value.charCodeAt(i);
      return;
    }
    // Encode in place (no temporary array): reserve the prefix for the shortest possible
    // UTF-8 length, and move the bytes in the rare case the real length needs a longer one.
    const reserved = vIntLength(value.length);
    // (+10: writeVInt below must find room without growing, which would drop the bytes past `length`.)
    if (this.length + 10 + 3 * value.length > this.bytes.length) this.grow(10 + 3 * value.length);
    const start = this.length + reserved;
    const written = encoder.encodeInto(value, this.bytes.subarray(start)).written;
    const prefix = vIntLength(written);
    if (prefix !== reserved) this.bytes.copyWithin(this.length + prefix, start, start + written);
    this.writeVInt(written);
    this.length += written;
  }

  private grow(needed: number): void {
    let capacity = this.bytes.length * 2;
    while (capacity < this.length + needed) capacity *= 2;
    const next = new Uint8Array(capacity);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
    this.view = new DataView(next.buffer);
  }
}

function isShortAscii(value: string): boolean {
  if (value.length > 64) return false;
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Bytes of `value` as a VInt. */
function vIntLength(value: number): number {
  let length = 1;
  while (value > 0x7f) {
    value = Math.floor(value / 128);
    length++;
  }
  return length;
}
