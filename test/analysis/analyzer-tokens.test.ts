import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { spellingHash, type Analyzer, type AnalyzerOptions } from '../../src/index/analysis/analyzer.js';
import { createAnalyzer } from '../../src/index/analysis/create-analyzer.js';
import { anyCodePoint } from '../support/code-point-unit.js';

/**
 * The raw-token path of the analyzer (`forEachToken` + `termOfToken`, what the indexing buffer
 * uses) against the term path, and both against the output of the analyzer as it was before
 * the scanner reported raw tokens (recorded below: `term@position:start-end`, and digests of
 * the same rendering over 5,000 generated texts per configuration). A change of these
 * expectations is a change of what users find: it needs a reindex, and a reason.
 */
const CONFIGS: Record<string, AnalyzerOptions> = {
  plain: {},
  stem: { stem: true },
  stop: { stopWords: true },
  stemStop: { stem: true, stopWords: true },
  keepCase: { caseFold: false, foldDiacritics: false },
  short: { maxTokenLength: 4 },
};

const TEXTS = [
  'Hello, World! The QUICK brown fox (jumps).',
  'HTTP/1.1 per [RFC2119] and RFC2616. See IPv6, SHA256, 0x1F.',
  'pi is 3.14, v1.2 ships; 192.0.2.1 and section 3.2.1. Item 1. Done. 1..2 3.a a.3 .5 5.',
  "don't O’Reilly IETF's it''s 'quoted' rock'n'roll can’t ’tis dogs' JOHN'S",
  'Café CAFÉ cafe\u0301 naïve Straße STRASSE İstanbul ISTANBUL ıi Ωmega ΣΊΣΥΦΟΣ',
  '東京都に住んでいます。日本語のテキスト abc漢字def 123漢字',
  'ภาษาไทยเป็นภาษาที่ไม่มีช่องว่าง Thai123',
  'emoji 😀 party🎉time a\u200db soft\u00adhyphen zero\u200cwidth word\u2060joiner \ufeffbom',
  'unpaired \ud800 high and low \udc00 end\ud83d',
  'ｆｕｌｌｗｉｄｔｈ ﬁle ǅemal ½ ² Ⅻ ٣٤ ०१२ x²',
  'a'.repeat(130) + ' short ' + 'B'.repeat(5),
  'ProtocolProtocols protocols running RUNS ran generalizations',
  'the THE The tHe a an AND and, to be or not to be',
  'multi\nline\ttext\r\nwith\u00a0nbsp\u2003emspace',
  'Ünïcödé 3.14ß ßß ǈ 12a3 a1b2c3 A1.B2 1.2.3.4.5.6.7.8.9.10',
  '\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd \u0645\u064e\u0631\u0652\u062d\u064e\u0628\u064b\u0627 \u304b\u3099',
  '\u0301leading mark, e\u0301\u0302 stacked, ΐ, ǖ',
  'ŀl·l Ø ø Łódź đ Ħ ŧ 1️⃣ keycap',
  'Mixed한국어 Кириллица деванагари हिन्दी',
  '',
  '   \t\n ',
];

const EXPECTED: Record<string, string[]> = {
  plain: [
    'hello@0:0-5 world@1:7-12 the@2:14-17 quick@3:18-23 brown@4:24-29 fox@5:30-33 jumps@6:35-40',
    'http@0:0-4 1.1@1:5-8 per@2:9-12 rfc2119@3:14-21 and@4:23-26 rfc2616@5:27-34 see@6:36-39 ipv6@7:40-44 sha256@8:46-52 0x1f@9:54-58',
    'pi@0:0-2 is@1:3-5 3.14@2:6-10 v1.2@3:12-16 ships@4:17-22 192.0.2.1@5:24-33 and@6:34-37 section@7:38-45 3.2.1@8:46-51 item@9:53-57 1@10:58-59 done@11:61-65 1@12:67-68 2@13:70-71 3@14:72-73 a@15:74-75 a@16:76-77 3@17:78-79 5@18:81-82 5@19:83-84',
    'dont@0:0-5 oreilly@1:6-14 ietf@2:15-21 it@3:22-24 s@4:26-27 quoted@5:29-35 rocknroll@6:37-48 cant@7:49-54 tis@8:56-59 dogs@9:60-64 john@10:66-72',
    'cafe@0:0-4 cafe@1:5-9 cafe@2:10-15 naive@3:16-21 strasse@4:22-28 strasse@5:29-36 istanbul@6:37-45 istanbul@7:46-54 ii@8:55-57 ωmega@9:58-63 σισυφοσ@10:64-71',
    '東京@0:0-2 都@1:2-3 に@2:3-4 住@3:4-5 んで@4:5-7 い@5:7-8 ます@6:8-10 日本語@7:11-14 の@8:14-15 テキスト@9:15-19 abc@10:20-23 漢字@11:23-25 def@12:25-28 123@13:29-32 漢字@14:32-34',
    'ภาษา@0:0-4 ไทย@1:4-7 เป็น@2:7-11 ภาษา@3:11-15 ที่@4:15-18 ไม่มี@5:18-23 ช่อง@6:23-27 ว่าง@7:27-31 thai123@8:32-39',
    'emoji@0:0-5 party@1:9-14 time@2:16-20 ab@3:21-24 softhyphen@4:25-36 zerowidth@5:37-47 wordjoiner@6:48-59 bom@7:61-64',
    'unpaired@0:0-8 high@1:11-15 and@2:16-19 low@3:20-23 end@4:26-29',
    'fullwidth@0:0-9 file@1:10-13 dzemal@2:14-19 12@3:20-21 2@4:22-23 xii@5:24-25 ٣٤@6:26-28 ०१२@7:29-32 x2@8:33-35',
    'short@1:131-136 bbbbb@2:137-142',
    'protocolprotocols@0:0-17 protocols@1:18-27 running@2:28-35 runs@3:36-40 ran@4:41-44 generalizations@5:45-60',
    'the@0:0-3 the@1:4-7 the@2:8-11 the@3:12-15 a@4:16-17 an@5:18-20 and@6:21-24 and@7:25-28 to@8:30-32 be@9:33-35 or@10:36-38 not@11:39-42 to@12:43-45 be@13:46-48',
    'multi@0:0-5 line@1:6-10 text@2:11-15 with@3:17-21 nbsp@4:22-26 emspace@5:27-34',
    'unicode@0:0-7 3.14ss@1:8-13 ssss@2:14-16 lj@3:17-18 12a3@4:19-23 a1b2c3@5:24-30 a1@6:31-33 b2@7:34-36 1.2.3.4.5.6.7.8.9.10@8:37-57',
    'שלום@0:0-7 مرحبا@1:8-17 が@2:18-20',
    'leading@0:1-8 mark@1:9-13 e@2:15-18 stacked@3:19-26 ι@4:28-29 u@5:31-32',
    'll@0:0-2 l@1:3-4 o@2:5-6 o@3:7-8 lodz@4:9-13 d@5:14-15 h@6:16-17 t@7:18-19 1@8:20-23 keycap@9:24-30',
    'mixed한국어@0:0-8 кириллица@1:9-18 деванагари@2:19-29 हिन्दी@3:30-36',
    '',
    '',
  ],
  stem: [
    'hello@0:0-5 world@1:7-12 the@2:14-17 quick@3:18-23 brown@4:24-29 fox@5:30-33 jump@6:35-40',
    'http@0:0-4 1.1@1:5-8 per@2:9-12 rfc2119@3:14-21 and@4:23-26 rfc2616@5:27-34 see@6:36-39 ipv6@7:40-44 sha256@8:46-52 0x1f@9:54-58',
    'pi@0:0-2 is@1:3-5 3.14@2:6-10 v1.2@3:12-16 ship@4:17-22 192.0.2.1@5:24-33 and@6:34-37 section@7:38-45 3.2.1@8:46-51 item@9:53-57 1@10:58-59 done@11:61-65 1@12:67-68 2@13:70-71 3@14:72-73 a@15:74-75 a@16:76-77 3@17:78-79 5@18:81-82 5@19:83-84',
    'dont@0:0-5 oreilli@1:6-14 ietf@2:15-21 it@3:22-24 s@4:26-27 quot@5:29-35 rocknrol@6:37-48 cant@7:49-54 ti@8:56-59 dog@9:60-64 john@10:66-72',
    'cafe@0:0-4 cafe@1:5-9 cafe@2:10-15 naiv@3:16-21 strass@4:22-28 strass@5:29-36 istanbul@6:37-45 istanbul@7:46-54 ii@8:55-57 ωmega@9:58-63 σισυφοσ@10:64-71',
    '東京@0:0-2 都@1:2-3 に@2:3-4 住@3:4-5 んで@4:5-7 い@5:7-8 ます@6:8-10 日本語@7:11-14 の@8:14-15 テキスト@9:15-19 abc@10:20-23 漢字@11:23-25 def@12:25-28 123@13:29-32 漢字@14:32-34',
    'ภาษา@0:0-4 ไทย@1:4-7 เป็น@2:7-11 ภาษา@3:11-15 ที่@4:15-18 ไม่มี@5:18-23 ช่อง@6:23-27 ว่าง@7:27-31 thai123@8:32-39',
    'emoji@0:0-5 parti@1:9-14 time@2:16-20 ab@3:21-24 softhyphen@4:25-36 zerowidth@5:37-47 wordjoin@6:48-59 bom@7:61-64',
    'unpair@0:0-8 high@1:11-15 and@2:16-19 low@3:20-23 end@4:26-29',
    'fullwidth@0:0-9 file@1:10-13 dzemal@2:14-19 12@3:20-21 2@4:22-23 xii@5:24-25 ٣٤@6:26-28 ०१२@7:29-32 x2@8:33-35',
    'short@1:131-136 bbbbb@2:137-142',
    'protocolprotocol@0:0-17 protocol@1:18-27 run@2:28-35 run@3:36-40 ran@4:41-44 gener@5:45-60',
    'the@0:0-3 the@1:4-7 the@2:8-11 the@3:12-15 a@4:16-17 an@5:18-20 and@6:21-24 and@7:25-28 to@8:30-32 be@9:33-35 or@10:36-38 not@11:39-42 to@12:43-45 be@13:46-48',
    'multi@0:0-5 line@1:6-10 text@2:11-15 with@3:17-21 nbsp@4:22-26 emspac@5:27-34',
    'unicod@0:0-7 3.14ss@1:8-13 ssss@2:14-16 lj@3:17-18 12a3@4:19-23 a1b2c3@5:24-30 a1@6:31-33 b2@7:34-36 1.2.3.4.5.6.7.8.9.10@8:37-57',
    'שלום@0:0-7 مرحبا@1:8-17 が@2:18-20',
    'lead@0:1-8 mark@1:9-13 e@2:15-18 stack@3:19-26 ι@4:28-29 u@5:31-32',
    'll@0:0-2 l@1:3-4 o@2:5-6 o@3:7-8 lodz@4:9-13 d@5:14-15 h@6:16-17 t@7:18-19 1@8:20-23 keycap@9:24-30',
    'mixed한국어@0:0-8 кириллица@1:9-18 деванагари@2:19-29 हिन्दी@3:30-36',
    '',
    '',
  ],
  stop: [
    'hello@0:0-5 world@1:7-12 quick@3:18-23 brown@4:24-29 fox@5:30-33 jumps@6:35-40',
    'http@0:0-4 1.1@1:5-8 per@2:9-12 rfc2119@3:14-21 rfc2616@5:27-34 see@6:36-39 ipv6@7:40-44 sha256@8:46-52 0x1f@9:54-58',
    'pi@0:0-2 3.14@2:6-10 v1.2@3:12-16 ships@4:17-22 192.0.2.1@5:24-33 section@7:38-45 3.2.1@8:46-51 item@9:53-57 1@10:58-59 done@11:61-65 1@12:67-68 2@13:70-71 3@14:72-73 3@17:78-79 5@18:81-82 5@19:83-84',
    'dont@0:0-5 oreilly@1:6-14 ietf@2:15-21 s@4:26-27 quoted@5:29-35 rocknroll@6:37-48 cant@7:49-54 tis@8:56-59 dogs@9:60-64 john@10:66-72',
    'cafe@0:0-4 cafe@1:5-9 cafe@2:10-15 naive@3:16-21 strasse@4:22-28 strasse@5:29-36 istanbul@6:37-45 istanbul@7:46-54 ii@8:55-57 ωmega@9:58-63 σισυφοσ@10:64-71',
    '東京@0:0-2 都@1:2-3 に@2:3-4 住@3:4-5 んで@4:5-7 い@5:7-8 ます@6:8-10 日本語@7:11-14 の@8:14-15 テキスト@9:15-19 abc@10:20-23 漢字@11:23-25 def@12:25-28 123@13:29-32 漢字@14:32-34',
    'ภาษา@0:0-4 ไทย@1:4-7 เป็น@2:7-11 ภาษา@3:11-15 ที่@4:15-18 ไม่มี@5:18-23 ช่อง@6:23-27 ว่าง@7:27-31 thai123@8:32-39',
    'emoji@0:0-5 party@1:9-14 time@2:16-20 ab@3:21-24 softhyphen@4:25-36 zerowidth@5:37-47 wordjoiner@6:48-59 bom@7:61-64',
    'unpaired@0:0-8 high@1:11-15 low@3:20-23 end@4:26-29',
    'fullwidth@0:0-9 file@1:10-13 dzemal@2:14-19 12@3:20-21 2@4:22-23 xii@5:24-25 ٣٤@6:26-28 ०१२@7:29-32 x2@8:33-35',
    'short@1:131-136 bbbbb@2:137-142',
    'protocolprotocols@0:0-17 protocols@1:18-27 running@2:28-35 runs@3:36-40 ran@4:41-44 generalizations@5:45-60',
    '',
    'multi@0:0-5 line@1:6-10 text@2:11-15 nbsp@4:22-26 emspace@5:27-34',
    'unicode@0:0-7 3.14ss@1:8-13 ssss@2:14-16 lj@3:17-18 12a3@4:19-23 a1b2c3@5:24-30 a1@6:31-33 b2@7:34-36 1.2.3.4.5.6.7.8.9.10@8:37-57',
    'שלום@0:0-7 مرحبا@1:8-17 が@2:18-20',
    'leading@0:1-8 mark@1:9-13 e@2:15-18 stacked@3:19-26 ι@4:28-29 u@5:31-32',
    'll@0:0-2 l@1:3-4 o@2:5-6 o@3:7-8 lodz@4:9-13 d@5:14-15 h@6:16-17 t@7:18-19 1@8:20-23 keycap@9:24-30',
    'mixed한국어@0:0-8 кириллица@1:9-18 деванагари@2:19-29 हिन्दी@3:30-36',
    '',
    '',
  ],
  stemStop: [
    'hello@0:0-5 world@1:7-12 quick@3:18-23 brown@4:24-29 fox@5:30-33 jump@6:35-40',
    'http@0:0-4 1.1@1:5-8 per@2:9-12 rfc2119@3:14-21 rfc2616@5:27-34 see@6:36-39 ipv6@7:40-44 sha256@8:46-52 0x1f@9:54-58',
    'pi@0:0-2 3.14@2:6-10 v1.2@3:12-16 ship@4:17-22 192.0.2.1@5:24-33 section@7:38-45 3.2.1@8:46-51 item@9:53-57 1@10:58-59 done@11:61-65 1@12:67-68 2@13:70-71 3@14:72-73 3@17:78-79 5@18:81-82 5@19:83-84',
    'dont@0:0-5 oreilli@1:6-14 ietf@2:15-21 s@4:26-27 quot@5:29-35 rocknrol@6:37-48 cant@7:49-54 ti@8:56-59 dog@9:60-64 john@10:66-72',
    'cafe@0:0-4 cafe@1:5-9 cafe@2:10-15 naiv@3:16-21 strass@4:22-28 strass@5:29-36 istanbul@6:37-45 istanbul@7:46-54 ii@8:55-57 ωmega@9:58-63 σισυφοσ@10:64-71',
    '東京@0:0-2 都@1:2-3 に@2:3-4 住@3:4-5 んで@4:5-7 い@5:7-8 ます@6:8-10 日本語@7:11-14 の@8:14-15 テキスト@9:15-19 abc@10:20-23 漢字@11:23-25 def@12:25-28 123@13:29-32 漢字@14:32-34',
    'ภาษา@0:0-4 ไทย@1:4-7 เป็น@2:7-11 ภาษา@3:11-15 ที่@4:15-18 ไม่มี@5:18-23 ช่อง@6:23-27 ว่าง@7:27-31 thai123@8:32-39',
    'emoji@0:0-5 parti@1:9-14 time@2:16-20 ab@3:21-24 softhyphen@4:25-36 zerowidth@5:37-47 wordjoin@6:48-59 bom@7:61-64',
    'unpair@0:0-8 high@1:11-15 low@3:20-23 end@4:26-29',
    'fullwidth@0:0-9 file@1:10-13 dzemal@2:14-19 12@3:20-21 2@4:22-23 xii@5:24-25 ٣٤@6:26-28 ०१२@7:29-32 x2@8:33-35',
    'short@1:131-136 bbbbb@2:137-142',
    'protocolprotocol@0:0-17 protocol@1:18-27 run@2:28-35 run@3:36-40 ran@4:41-44 gener@5:45-60',
    '',
    'multi@0:0-5 line@1:6-10 text@2:11-15 nbsp@4:22-26 emspac@5:27-34',
    'unicod@0:0-7 3.14ss@1:8-13 ssss@2:14-16 lj@3:17-18 12a3@4:19-23 a1b2c3@5:24-30 a1@6:31-33 b2@7:34-36 1.2.3.4.5.6.7.8.9.10@8:37-57',
    'שלום@0:0-7 مرحبا@1:8-17 が@2:18-20',
    'lead@0:1-8 mark@1:9-13 e@2:15-18 stack@3:19-26 ι@4:28-29 u@5:31-32',
    'll@0:0-2 l@1:3-4 o@2:5-6 o@3:7-8 lodz@4:9-13 d@5:14-15 h@6:16-17 t@7:18-19 1@8:20-23 keycap@9:24-30',
    'mixed한국어@0:0-8 кириллица@1:9-18 деванагари@2:19-29 हिन्दी@3:30-36',
    '',
    '',
  ],
  keepCase: [
    'Hello@0:0-5 World@1:7-12 The@2:14-17 QUICK@3:18-23 brown@4:24-29 fox@5:30-33 jumps@6:35-40',
    'HTTP@0:0-4 1.1@1:5-8 per@2:9-12 RFC2119@3:14-21 and@4:23-26 RFC2616@5:27-34 See@6:36-39 IPv6@7:40-44 SHA256@8:46-52 0x1F@9:54-58',
    'pi@0:0-2 is@1:3-5 3.14@2:6-10 v1.2@3:12-16 ships@4:17-22 192.0.2.1@5:24-33 and@6:34-37 section@7:38-45 3.2.1@8:46-51 Item@9:53-57 1@10:58-59 Done@11:61-65 1@12:67-68 2@13:70-71 3@14:72-73 a@15:74-75 a@16:76-77 3@17:78-79 5@18:81-82 5@19:83-84',
    'dont@0:0-5 OReilly@1:6-14 IETF@2:15-21 it@3:22-24 s@4:26-27 quoted@5:29-35 rocknroll@6:37-48 cant@7:49-54 tis@8:56-59 dogs@9:60-64 JOHN@10:66-72',
    'Café@0:0-4 CAFÉ@1:5-9 café@2:10-15 naïve@3:16-21 Straße@4:22-28 STRASSE@5:29-36 İstanbul@6:37-45 ISTANBUL@7:46-54 ıi@8:55-57 Ωmega@9:58-63 ΣΊΣΥΦΟΣ@10:64-71',
    '東京@0:0-2 都@1:2-3 に@2:3-4 住@3:4-5 んで@4:5-7 い@5:7-8 ます@6:8-10 日本語@7:11-14 の@8:14-15 テキスト@9:15-19 abc@10:20-23 漢字@11:23-25 def@12:25-28 123@13:29-32 漢字@14:32-34',
    'ภาษา@0:0-4 ไทย@1:4-7 เป็น@2:7-11 ภาษา@3:11-15 ที่@4:15-18 ไม่มี@5:18-23 ช่อง@6:23-27 ว่าง@7:27-31 Thai123@8:32-39',
    'emoji@0:0-5 party@1:9-14 time@2:16-20 ab@3:21-24 softhyphen@4:25-36 zerowidth@5:37-47 wordjoiner@6:48-59 bom@7:61-64',
    'unpaired@0:0-8 high@1:11-15 and@2:16-19 low@3:20-23 end@4:26-29',
    'fullwidth@0:0-9 file@1:10-13 Džemal@2:14-19 12@3:20-21 2@4:22-23 XII@5:24-25 ٣٤@6:26-28 ०१२@7:29-32 x2@8:33-35',
    'short@1:131-136 BBBBB@2:137-142',
    'ProtocolProtocols@0:0-17 protocols@1:18-27 running@2:28-35 RUNS@3:36-40 ran@4:41-44 generalizations@5:45-60',
    'the@0:0-3 THE@1:4-7 The@2:8-11 tHe@3:12-15 a@4:16-17 an@5:18-20 AND@6:21-24 and@7:25-28 to@8:30-32 be@9:33-35 or@10:36-38 not@11:39-42 to@12:43-45 be@13:46-48',
    'multi@0:0-5 line@1:6-10 text@2:11-15 with@3:17-21 nbsp@4:22-26 emspace@5:27-34',
    'Ünïcödé@0:0-7 3.14ß@1:8-13 ßß@2:14-16 Lj@3:17-18 12a3@4:19-23 a1b2c3@5:24-30 A1@6:31-33 B2@7:34-36 1.2.3.4.5.6.7.8.9.10@8:37-57',
    'שָׁלוֹם@0:0-7 مَرْحَبًا@1:8-17 が@2:18-20',
    'leading@0:1-8 mark@1:9-13 é̂@2:15-18 stacked@3:19-26 ΐ@4:28-29 ǖ@5:31-32',
    'll@0:0-2 l@1:3-4 Ø@2:5-6 ø@3:7-8 Łódź@4:9-13 đ@5:14-15 Ħ@6:16-17 ŧ@7:18-19 1⃣@8:20-23 keycap@9:24-30',
    'Mixed한국어@0:0-8 Кириллица@1:9-18 деванагари@2:19-29 हिन्दी@3:30-36',
    '',
    '',
  ],
  short: [
    'the@2:14-17 fox@5:30-33',
    'http@0:0-4 1.1@1:5-8 per@2:9-12 and@4:23-26 see@6:36-39 ipv6@7:40-44 0x1f@9:54-58',
    'pi@0:0-2 is@1:3-5 3.14@2:6-10 v1.2@3:12-16 and@6:34-37 item@9:53-57 1@10:58-59 done@11:61-65 1@12:67-68 2@13:70-71 3@14:72-73 a@15:74-75 a@16:76-77 3@17:78-79 5@18:81-82 5@19:83-84',
    'it@3:22-24 s@4:26-27 tis@8:56-59 dogs@9:60-64',
    'cafe@0:0-4 cafe@1:5-9 ii@8:55-57',
    '東京@0:0-2 都@1:2-3 に@2:3-4 住@3:4-5 んで@4:5-7 い@5:7-8 ます@6:8-10 日本語@7:11-14 の@8:14-15 テキスト@9:15-19 abc@10:20-23 漢字@11:23-25 def@12:25-28 123@13:29-32 漢字@14:32-34',
    'ภาษา@0:0-4 ไทย@1:4-7 เป็น@2:7-11 ภาษา@3:11-15 ที่@4:15-18 ช่อง@6:23-27 ว่าง@7:27-31',
    'time@2:16-20 ab@3:21-24 bom@7:61-64',
    'high@1:11-15 and@2:16-19 low@3:20-23 end@4:26-29',
    'file@1:10-13 12@3:20-21 2@4:22-23 xii@5:24-25 ٣٤@6:26-28 ०१२@7:29-32 x2@8:33-35',
    '',
    'runs@3:36-40 ran@4:41-44',
    'the@0:0-3 the@1:4-7 the@2:8-11 the@3:12-15 a@4:16-17 an@5:18-20 and@6:21-24 and@7:25-28 to@8:30-32 be@9:33-35 or@10:36-38 not@11:39-42 to@12:43-45 be@13:46-48',
    'line@1:6-10 text@2:11-15 with@3:17-21 nbsp@4:22-26',
    'ssss@2:14-16 lj@3:17-18 12a3@4:19-23 a1@6:31-33 b2@7:34-36',
    'が@2:18-20',
    'mark@1:9-13 e@2:15-18 ι@4:28-29 u@5:31-32',
    'll@0:0-2 l@1:3-4 o@2:5-6 o@3:7-8 lodz@4:9-13 d@5:14-15 h@6:16-17 t@7:18-19 1@8:20-23',
    '',
    '',
    '',
  ],
};

const DIGESTS: Record<string, string> = {
  plain: 'ebb5523274ac682dad00b823fb7b2e12d2cbefaea5885402afe9e4e889dd02cb',
  stem: '50229e2d348b618ae1c2546a64962fc53a22bef474ee171b5f094675da5bc800',
  stop: 'e13e49142afa9edd9e86864bbbb6e8ea98311575c3a04c3ee3e4bee3bf962cb8',
  stemStop: 'a3877e4cb1ee4e2ad889e8b95c6e5cd33f035ad501646d952a3b284a48a447c5',
  keepCase: '710b607f99e9a87aa7fb1db4ee610d0a37cd2dfcc7aa80f2ef63301e99a38f22',
  short: '3a52b38c8c0f17e0eeee822e1d36765a1feb6ab870cdb460b840d2aaddd0a421',
};

// A deterministic generator over characters that exercise every branch of the scanner.
const ALPHABET = [..."aZ09.'’ -_/:,é\u0301ßİı東京ไทย😀\u200d\u00ad\ud800ΣςﬁＡ½٣\u3099 \n"];
function* generatedTexts(count: number): Generator<string> {
  let seed = 12345;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let i = 0; i < count; i++) {
    const length = Math.floor(next() * 40);
    let s = '';
    for (let j = 0; j < length; j++) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
    yield s;
  }
}

function show(analyzer: Analyzer, text: string): string {
  return analyzer
    .tokens(text)
    .map((t) => `${t.term}@${t.position}:${t.start}-${t.end}`)
    .join(' ');
}

/** The same rendering through forEachToken and termOfToken. */
function showRaw(analyzer: Analyzer, text: string): string {
  const out: string[] = [];
  analyzer.forEachToken(text, 0, {
    token(source, start, end, kind, hash, position) {
      assert.equal(
        hash,
        spellingHash(source, start, end),
        `hash of ${JSON.stringify(source.slice(start, end))}`,
      );
      const term = analyzer.termOfToken(source, start, end, kind);
      if (term !== null) out.push(`${term}@${position}:${start}-${end}`);
    },
  });
  return out.join(' ');
}

describe('createAnalyzer: same tokens as before raw tokens', () => {
  for (const [name, options] of Object.entries(CONFIGS)) {
    it(`gives the recorded tokens with ${name} options`, () => {
      const analyzer = createAnalyzer(options);
      assert.deepEqual(
        TEXTS.map((text) => show(analyzer, text)),
        EXPECTED[name],
      );
      const hash = createHash('sha256');
      for (const text of generatedTexts(5000))
        hash.update(show(analyzer, text) + '\n' + analyzer.terms(text).join(' ') + '\n');
      assert.equal(hash.digest('hex'), DIGESTS[name]);
    });
  }
});

describe('createAnalyzer: forEachToken and termOfToken', () => {
  it('give the tokens of tokens(), dropped ones reported with their positions', () => {
    const stop = createAnalyzer({ stopWords: true, maxTokenLength: 8 });
    const seen: string[] = [];
    const next = stop.forEachToken('The quick extraordinary fox', 5, {
      token(text, start, end, kind, _hash, position) {
        seen.push(`${text.slice(start, end)}=${stop.termOfToken(text, start, end, kind)}@${position}`);
      },
    });
    assert.deepEqual(seen, ['The=null@5', 'quick=quick@6', 'extraordinary=null@7', 'fox=fox@8']);
    assert.equal(next, 9);
  });

  it('agree with tokens() on any text, whatever the options, and give each spelling its hash', () => {
    const analyzers = Object.values(CONFIGS).map((options) => createAnalyzer(options));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'grapheme', maxLength: 60 }),
          fc.string({ unit: anyCodePoint, maxLength: 60 }),
          fc.constantFrom(...TEXTS),
        ),
        (text) => {
          for (const analyzer of analyzers) assert.equal(showRaw(analyzer, text), show(analyzer, text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives a term that depends only on the spelling, wherever the token is', () => {
    const analyzer = createAnalyzer({ stem: true, stopWords: true });
    for (const text of TEXTS) {
      analyzer.forEachToken(text, 0, {
        token(source, start, end, kind) {
          const alone = source.slice(start, end);
          const terms = analyzer.terms(alone);
          const term = analyzer.termOfToken(source, start, end, kind);
          // The spelling analysed on its own is the same single token (or a dropped one).
          assert.deepEqual(term === null ? [] : [term], terms, alone);
        },
      });
    }
  });
});
