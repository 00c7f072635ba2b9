import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixDocumentDates, normalizeDate } from '../../src/collection/filters/date-fixer.js';
import type { FilteredDocument } from '../../src/collection/filters/filtered-document.js';
import { fileNameTitle, fixDocumentTitle } from '../../src/collection/filters/title-fixer.js';
import { runFilters } from './run-filter.js';

const FIXER = 'DocumentFixerFilterProvider';
const doc = (fields: Partial<FilteredDocument>): FilteredDocument => ({
  text: '',
  metadata: {},
  links: [],
  ...fields,
});

describe('DocumentFixerFilterProvider: titles', () => {
  it('keeps a useful title (white space collapsed, an office prefix removed)', () => {
    assert.equal(
      fixDocumentTitle(doc({ title: '  Ferry\n timetable ' }), 'http://x/a').title,
      'Ferry timetable',
    );
    assert.equal(
      fixDocumentTitle(doc({ title: 'Microsoft Word - Annual report' }), 'http://x/a').title,
      'Annual report',
    );
  });

  it('replaces a default or file-name title by the first heading, else the first line, else the file name', () => {
    for (const useless of [
      'Untitled Document',
      'PowerPoint Presentation',
      'Slide 1',
      'report.docx',
      ' ',
      '--',
    ]) {
      assert.equal(
        fixDocumentTitle(
          doc({ title: useless, heading: 'Bin days', text: 'Skip to content\nBins' }),
          'http://x/a',
        ).title,
        'Bin days',
        useless,
      );
    }
    assert.equal(
      fixDocumentTitle(doc({ text: '\n  \nFirst  words here\nmore' }), 'http://x/a').title,
      'First words here',
    );
    assert.equal(
      fixDocumentTitle(doc({ title: 'Untitled' }), 'https://gov.example/files/Annual-Report_2024%20final.pdf')
        .title,
      'Annual Report 2024 final',
    );
    assert.equal(fixDocumentTitle(doc({ title: 'Untitled' }), 'https://gov.example/').title, undefined);
  });

  it('cuts a title made from a long line at a word', () => {
    const title = fixDocumentTitle(doc({ text: 'word '.repeat(60) }), 'http://x/a').title ?? '';
    assert.ok(title.length <= 101 && title.endsWith('word…'), title);
  });

  it('names a document by its key when nothing else can (file names decoded, extension dropped)', () => {
    assert.equal(fileNameTitle('https://a.example/docs/q3_budget-summary.xlsx'), 'q3 budget summary');
    assert.equal(fileNameTitle('https://a.example/docs/%C3%A9t%C3%A9-2025.pdf'), 'été 2025');
    assert.equal(fileNameTitle('https://a.example/docs/%E2%9C%93.pdf'), undefined);
    assert.equal(fileNameTitle('https://a.example/bad%zz.pdf'), 'bad%zz');
  });

  it('runs as the last step of a chain: the HTML page of the CMS gets its <h1> for a title', () => {
    const page =
      '<title>Untitled Document</title><nav>Skip to content</nav><h1>Council tax</h1><p>Bands and rates</p>';
    assert.equal(
      runFilters(page, 'text/html', { chain: `JSoupProcessingFilterProvider:${FIXER}` }).title,
      'Council tax',
    );
    // Without the fixer the useless title stays: the repair is the fixer's, not the HTML filter's.
    assert.equal(
      runFilters(page, 'text/html', { chain: 'JSoupProcessingFilterProvider' }).title,
      'Untitled Document',
    );
  });
});

describe('DocumentFixerFilterProvider: dates', () => {
  it('writes the forms documents use as ISO 8601', () => {
    const cases: [string, string | undefined][] = [
      ["D:20240315093000+01'00'", '2024-03-15T08:30:00Z'],
      ['D:20240315093000Z', '2024-03-15T09:30:00Z'],
      ['D:20240315', '2024-03-15'],
      ['27/11/2026', '2026-11-27'],
      ['7.3.2025', '2025-03-07'],
      ['2026-11-27', '2026-11-27'],
      ['2026-11-27T09:30:00.000+02:00', '2026-11-27T07:30:00Z'],
      ['Fri, 27 Nov 2026 09:30:00 GMT', '2026-11-27T09:30:00Z'],
      ['27 November 2026', '2026-11-27'],
      ['31/02/2026', undefined],
      ['soon', undefined],
      ['', undefined],
    ];
    for (const [text, expected] of cases) assert.equal(normalizeDate(text), expected, text);
  });

  it('normalizes date properties, dates a document from its last change, and leaves other metadata alone', () => {
    const fixed = fixDocumentDates(
      doc({
        metadata: {
          '<creationdate>': ['D:20200101120000Z'],
          '<moddate>': ["D:20240315093000+01'00'"],
          '<author>': ['27/11/2026'],
          '<dc.date>': ['not a date'],
        },
      }),
    );
    assert.deepEqual(fixed.metadata, {
      '<creationdate>': ['2020-01-01T12:00:00Z'],
      '<moddate>': ['2024-03-15T08:30:00Z'],
      '<author>': ['27/11/2026'],
      '<dc.date>': ['not a date'],
      '<date>': ['2024-03-15T08:30:00Z'],
    });
    const dated = fixDocumentDates(
      doc({ metadata: { '<date>': ['1/2/2025'], '<modified>': ['2026-01-01'] } }),
    );
    assert.deepEqual(dated.metadata['<date>'], ['2025-02-01'], 'a date of its own is kept (normalized)');
  });
});
