/**
 * The part of a collection's xml.cfg the XML filter needs. It matches the shape the xml.cfg
 * parser produces, so its result can be passed in as is.
 */
export interface XmlConfigLike {
  /** `class,type,,xpath` lines: values found at `xpath` are stored under the xpath string. */
  mappings: readonly { className: string; type: number; xpath: string }[];
  /** The `docurl` line: where a record's own URL is. */
  docUrlXpath?: string;
}
