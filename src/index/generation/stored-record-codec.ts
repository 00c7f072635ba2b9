import { ByteReader } from '../store/byte-reader.js';
import type { ByteWriter } from '../store/byte-writer.js';
import type { StoredRecord, StoredValue } from '../document.js';

const TAG_STRING = 0;
const TAG_STRINGS = 1;
const TAG_BYTES = 2;
const TAG_NUMBER = 3;

/** Stored record layout: count · (name · tag · value)*. */
export function writeStoredRecord(out: ByteWriter, record: StoredRecord): void {
  const names = Object.keys(record);
  out.writeVInt(names.length);
  for (const name of names) {
    const value = record[name]!;
    out.writeString(name);
    if (typeof value === 'string') {
      out.writeByte(TAG_STRING);
      out.writeString(value);
    } else if (typeof value === 'number') {
      out.writeByte(TAG_NUMBER);
      out.writeFloat64(value);
    } else if (value instanceof Uint8Array) {
      out.writeByte(TAG_BYTES);
      out.writeVInt(value.length);
      out.writeBytes(value);
    } else {
      out.writeByte(TAG_STRINGS);
      out.writeVInt(value.length);
      for (const item of value) out.writeString(item);
    }
  }
}

export function readStoredRecord(input: ByteReader): StoredRecord {
  const record: StoredRecord = {};
  const count = input.readVInt();
  for (let i = 0; i < count; i++) {
    const name = input.readString();
    const tag = input.readByte();
    let value: StoredValue;
    switch (tag) {
      case TAG_STRING:
        value = input.readString();
        break;
      case TAG_NUMBER:
        value = input.readFloat64();
        break;
      case TAG_BYTES:
        value = new Uint8Array(input.readBytes(input.readVInt())); // a copy, not a view of the block
        break;
      case TAG_STRINGS: {
        const n = input.readVInt();
        const items: string[] = [];
        for (let j = 0; j < n; j++) items.push(input.readString());
        value = items;
        break;
      }
      default:
        throw new RangeError(`unknown stored value tag ${tag}`);
    }
    record[name] = value;
  }
  return record;
}
