// Writes the Parquet fixtures of tests/io/parquet_test.cpp with two Parquet writers independent of nanotrn, so that
// the reader (src/io/parquet.h) is tested against files it did not write:
//   parquet-wasm 0.8.0 (the Rust `parquet` crate of arrow-rs, compiled to WebAssembly; fed by apache-arrow 21.2.0):
//     v1 and v2 data pages, UNCOMPRESSED / SNAPPY / ZSTD (and GZIP, LZ4_RAW for the refusals), dictionary on or off,
//     DELTA_* encodings, small pages and row groups;
//   hyparquet-writer 0.17.0 (a JavaScript writer): v2 data pages, SNAPPY, RLE_DICTIONARY.
// Every fixture is read back with parquet-wasm's reader and compared with the values it was written from, and its
// metadata (codec, page types, row groups) is checked against what the fixture is meant to exercise.
//
// Run (Node 18+; the packages go to a scratch folder, never into the repository):
//   mkdir -p /tmp/pqgen && cd /tmp/pqgen && npm init -y >/dev/null &&
//     npm install parquet-wasm@0.8.0 apache-arrow@21.2.0 hyparquet-writer@0.17.0 hyparquet@1.33.0
//   node tests/io/parquet/make_fixtures.mjs /tmp/pqgen        # from the repository root
//
// Writes, beside this script: <name>.parquet for each fixture; <name>.jsonl for each readable one (one JSON object
// per row: its text columns, null for a null); fixtures.json (the manifest the test walks: each fixture's writer,
// settings, text columns and what an independent reader saw: rows, row groups and page counts per column). The
// output depends only on this script and the package versions; running it twice gives the same bytes.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.argv[2];
if (!modules) throw new Error('usage: node make_fixtures.mjs <folder holding node_modules>');
const resolve = createRequire(path.join(path.resolve(modules), 'package.json')).resolve;
const load = (name) => import(pathToFileURL(resolve(name)).href);
const pw = await load('parquet-wasm/node');
const arrow = await load('apache-arrow');
const { parquetWriteBuffer } = await load('hyparquet-writer');
const { parquetMetadata } = await load('hyparquet');

// ---- deterministic text ----

function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const kSamples = [
  (i) => `Plain ASCII sentence number ${i}.`,
  (i) => `Ünïcödé ${i}: naïve café, 中文文本, 日本語のテキスト, 한국어, emoji 🙂🚀, עברית, العربية`,
  (i) => `line one of ${i}\nline two\n\nparagraph two`,
  (i) => `windows ${i}\r\nline endings\r\n`,
  (i) => `tabs\tand "quotes" and \\backslashes\\ ${i}`,
  () => '',
  (i) => `nul\u0000byte ${i}`,
  (i) => `combining e\u0301 and ${'\u{1F600}'.repeat(i % 4)}`,
  (i, r) => `long ${i}: ` + 'lorem ipsum dolor sit amet '.repeat(1 + Math.floor(r() * 20)),
];

// `n` texts (seeded); `nullRate` of them null; `vocab` > 0: drawn from that many distinct texts (dictionary-friendly).
function texts(n, seed, { nullRate = 0, vocab = 0 } = {}) {
  const r = mulberry32(seed);
  const pool = vocab > 0 ? Array.from({ length: vocab }, (_, i) => kSamples[i % kSamples.length](i, r)) : null;
  return Array.from({ length: n }, (_, i) => {
    if (r() < nullRate) return null;
    if (pool) return pool[Math.floor(r() * pool.length)];
    return kSamples[Math.floor(r() * kSamples.length)](i, r);
  });
}

// ---- writers ----

const utf8 = (values) => arrow.vectorFromArray(values, new arrow.Utf8());

// parquet-wasm: `columns` maps names to arrow vectors (a name ending in '!' is written REQUIRED, i.e. non-nullable).
function writeArrowRs(columns, options) {
  const fields = [], data = {};
  for (const [key, vector] of Object.entries(columns)) {
    const name = key.replace(/!$/, '');
    fields.push(new arrow.Field(name, vector.type, !key.endsWith('!')));
    data[name] = vector;
  }
  const batch = new arrow.RecordBatch(new arrow.Schema(fields), arrow.makeData({
    type: new arrow.Struct(fields), length: Object.values(columns)[0].length, nullCount: 0,
    children: fields.map((f) => data[f.name].data[0]),
  }));
  const table = pw.Table.fromIPCStream(arrow.tableToIPC(new arrow.Table([batch]), 'stream'));
  let b = new pw.WriterPropertiesBuilder()
    .setCreatedBy('parquet-wasm 0.8.0 (nanotrn fixtures)')
    .setWriterVersion(options.v2 ? pw.WriterVersion.V2 : pw.WriterVersion.V1)
    .setCompression(pw.Compression[options.codec])
    .setDictionaryEnabled(options.dictionary);
  if (options.rowGroupRows) b = b.setMaxRowGroupSize(options.rowGroupRows);
  if (options.pageBytes) b = b.setDataPageSizeLimit(options.pageBytes).setWriteBatchSize(options.batchRows ?? 8);
  if (options.dictionaryBytes) b = b.setDictionaryPageSizeLimit(options.dictionaryBytes);
  if (options.encoding) b = b.setColumnEncoding('text', pw.Encoding[options.encoding]);
  return pw.writeParquet(table, b.build());
}

function writeHyparquet(columnData, options) {
  return new Uint8Array(parquetWriteBuffer({ columnData, createdBy: 'hyparquet-writer 0.17.0 (nanotrn fixtures)',
                                             ...options }));
}

// ---- checks with independent readers ----

function readBack(bytes) {  // parquet-wasm's reader (arrow-rs): column name -> values
  const table = arrow.tableFromIPC(pw.readParquet(bytes).intoIPCStream());
  const out = {};
  for (const f of table.schema.fields) out[f.name] = table.getChild(f.name).toArray();
  return out;
}

function describe(bytes) {  // hyparquet's metadata reader: rows, row groups, per column codec and page counts
  const md = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const columns = {};
  for (const g of md.row_groups) {
    for (const c of g.columns) {
      const name = c.meta_data.path_in_schema.join('.');
      const d = (columns[name] ??= { codec: c.meta_data.codec, encodings: new Set(), pages: {} });
      for (const e of c.meta_data.encodings) d.encodings.add(e);
      for (const s of c.meta_data.encoding_stats ?? []) d.pages[s.page_type] = (d.pages[s.page_type] ?? 0) + s.count;
    }
  }
  for (const d of Object.values(columns)) d.encodings = [...d.encodings].sort();
  return { rows: Number(md.num_rows), row_groups: md.row_groups.length, columns };
}

function expect(condition, what) {
  if (!condition) throw new Error(`fixture check failed: ${what}`);
}

// ---- the fixtures ----

const manifest = { generator: 'tests/io/parquet/make_fixtures.mjs', fixtures: [] };

// A fixture the reader must read: `rows` maps each text column to its values (null for null).
function readable(name, writer, settings, bytes, rows, claims) {
  const back = readBack(bytes);
  for (const [column, values] of Object.entries(rows)) {
    expect(JSON.stringify(Array.from(back[column])) === JSON.stringify(values), `${name}: ${column} reads back`);
  }
  const meta = describe(bytes);
  claims(meta);
  const n = Object.values(rows)[0].length;
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify(Object.fromEntries(Object.keys(rows).map((c) => [c, rows[c][i]]))));
  writeFileSync(path.join(here, `${name}.parquet`), bytes);
  writeFileSync(path.join(here, `${name}.jsonl`), lines.join('\n') + (lines.length ? '\n' : ''));
  manifest.fixtures.push({ file: `${name}.parquet`, expected: `${name}.jsonl`, writer, ...settings,
                           text_columns: Object.keys(rows), ...meta });
}

// A fixture the reader must refuse, with what its message must contain.
function refused(name, writer, settings, bytes, column, error, claims) {
  claims(describe(bytes));
  writeFileSync(path.join(here, `${name}.parquet`), bytes);
  manifest.fixtures.push({ file: `${name}.parquet`, writer, ...settings, refused: { column, error } });
}

const pages = (m, column, type) => m.columns[column].pages[type] ?? 0;
const kArrowRs = 'parquet-wasm 0.8.0';
const kHyparquet = 'hyparquet-writer 0.17.0';

function arrowRsText(name, settings, values, claims, extra = {}) {
  const bytes = writeArrowRs({ [settings.required ? 'text!' : 'text']: utf8(values), ...extra }, settings);
  readable(name, kArrowRs, settings, bytes, { text: values }, (m) => {
    if (values.length === 0) return expect(m.row_groups === 0, `${name}: no row groups`);
    expect(m.columns.text.codec === settings.codec, `${name}: codec ${m.columns.text.codec}`);
    expect(pages(m, 'text', settings.v2 ? 'DATA_PAGE_V2' : 'DATA_PAGE') > 0, `${name}: page version`);
    expect((pages(m, 'text', 'DICTIONARY_PAGE') > 0) === settings.dictionary, `${name}: dictionary page`);
    claims?.(m);
  });
}

arrowRsText('v1_plain_snappy', { v2: false, codec: 'SNAPPY', dictionary: false }, texts(50, 1));
arrowRsText('v1_dict_zstd', { v2: false, codec: 'ZSTD', dictionary: true }, texts(60, 2, { vocab: 9 }));
arrowRsText('v2_plain_zstd', { v2: true, codec: 'ZSTD', dictionary: false, encoding: 'PLAIN' }, texts(50, 3));
// Without a dictionary, arrow-rs's v2 writer stores strings DELTA_BYTE_ARRAY (as parquet-java's and Spark's do).
arrowRsText('v2_delta_byte_array_zstd', { v2: true, codec: 'ZSTD', dictionary: false }, texts(50, 19),
            (m) => expect(m.columns.text.encodings.includes('DELTA_BYTE_ARRAY'), 'v2 default: DELTA_BYTE_ARRAY'));
arrowRsText('v1_delta_length_snappy', { v2: false, codec: 'SNAPPY', dictionary: false,
                                        encoding: 'DELTA_LENGTH_BYTE_ARRAY' }, texts(50, 20, { nullRate: 0.1 }),
            (m) => expect(m.columns.text.encodings.includes('DELTA_LENGTH_BYTE_ARRAY'), 'DELTA_LENGTH_BYTE_ARRAY'));
arrowRsText('v1_delta_byte_array_uncompressed', { v2: false, codec: 'UNCOMPRESSED', dictionary: false,
                                                  encoding: 'DELTA_BYTE_ARRAY' },
            Array.from({ length: 150 }, (_, i) => `https://example.org/corpus/shard-${String(i).padStart(5, '0')}`),
            (m) => expect(m.columns.text.encodings.includes('DELTA_BYTE_ARRAY'), 'DELTA_BYTE_ARRAY'));
arrowRsText('v2_dict_snappy', { v2: true, codec: 'SNAPPY', dictionary: true }, texts(60, 4, { vocab: 9 }));
arrowRsText('v1_uncompressed', { v2: false, codec: 'UNCOMPRESSED', dictionary: false }, texts(40, 5));
arrowRsText('v2_dict_uncompressed', { v2: true, codec: 'UNCOMPRESSED', dictionary: true }, texts(40, 6, { vocab: 5 }));
arrowRsText('nulls_v1_dict_snappy', { v2: false, codec: 'SNAPPY', dictionary: true },
            texts(60, 7, { nullRate: 0.3, vocab: 9 }));
arrowRsText('nulls_v2_plain_zstd', { v2: true, codec: 'ZSTD', dictionary: false, encoding: 'PLAIN' }, texts(60, 8, { nullRate: 0.3 }));
arrowRsText('all_nulls_v1', { v2: false, codec: 'SNAPPY', dictionary: false }, texts(12, 9, { nullRate: 1 }));
arrowRsText('all_nulls_v2', { v2: true, codec: 'ZSTD', dictionary: false }, texts(12, 9, { nullRate: 1 }));
arrowRsText('required_v1_plain_snappy', { v2: false, codec: 'SNAPPY', dictionary: false, required: true },
            texts(40, 10));
arrowRsText('required_v2_dict_zstd', { v2: true, codec: 'ZSTD', dictionary: true, required: true },
            texts(40, 11, { vocab: 7 }));
arrowRsText('empty', { v2: false, codec: 'SNAPPY', dictionary: false }, []);
// Several row groups, several pages per chunk, and a dictionary that overflows its page limit mid-chunk (the chunk
// falls back to PLAIN pages after its dictionary-encoded ones).
for (const [name, v2, codec, nullRate] of [['row_groups_pages_v1', false, 'ZSTD', 0], ['row_groups_pages_v2', true,
                                                                                       'SNAPPY', 0.1]]) {
  const settings = { v2, codec, dictionary: true, rowGroupRows: 50, pageBytes: 256, batchRows: 4,
                     dictionaryBytes: 1024 };
  arrowRsText(name, settings, texts(200, 12, { nullRate }), (m) => {
    expect(m.row_groups === 4, `${name}: row groups`);
    expect(pages(m, 'text', v2 ? 'DATA_PAGE_V2' : 'DATA_PAGE') >= 4 * 2, `${name}: pages per chunk`);
    expect(m.columns.text.encodings.includes('PLAIN') && m.columns.text.encodings.includes('RLE_DICTIONARY'),
           `${name}: dictionary fallback`);
  });
}

// Several columns: text columns to choose from, and others the reader refuses.
{
  const n = 30, text = texts(n, 13, { nullRate: 0.2 }), title = texts(n, 14, { vocab: 6 });
  const tags = arrow.vectorFromArray(Array.from({ length: n }, (_, i) => (i % 3 ? [`tag${i}`, 'x'] : [])),
                                     new arrow.List(new arrow.Field('item', new arrow.Utf8(), true)));
  const columns = { 'id!': arrow.vectorFromArray(Array.from({ length: n }, (_, i) => i), new arrow.Int32()),
                    title: utf8(title), text: utf8(text), tags,
                    score: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => i / 4), new arrow.Float64()) };
  const settings = { v2: false, codec: 'SNAPPY', dictionary: true };
  readable('columns', kArrowRs, settings, writeArrowRs(columns, settings), { text, title }, (m) => {
    expect(Object.keys(m.columns).join() === 'id,title,text,tags.list.item,score', 'columns: leaves');
  });
}

// The second writer.
{
  const text = texts(120, 15, { vocab: 8 }), id = Array.from({ length: 120 }, (_, i) => i);
  const settings = { v2: true, codec: 'SNAPPY', dictionary: true, rowGroupRows: 50 };
  const bytes = writeHyparquet([{ name: 'id', data: id, type: 'INT32' }, { name: 'text', data: text, type: 'STRING' }],
                               { rowGroupSize: 50 });
  readable('hyparquet_v2_dict_snappy', kHyparquet, settings, bytes, { text }, (m) => {
    expect(m.row_groups === 3 && m.columns.text.codec === 'SNAPPY', 'hyparquet: row groups, codec');
    expect(m.columns.text.encodings.includes('RLE_DICTIONARY'), 'hyparquet: dictionary');
  });
  const nulls = texts(80, 16, { nullRate: 0.25 });
  const plain = { v2: true, codec: 'SNAPPY', dictionary: false };
  readable('hyparquet_v2_nulls', kHyparquet, plain, writeHyparquet([{ name: 'text', data: nulls, type: 'STRING' }], {}),
           { text: nulls }, () => {});
}

// Refused: codecs and encodings the reader lacks.
for (const codec of ['GZIP', 'LZ4_RAW', 'BROTLI']) {
  const settings = { v2: false, codec, dictionary: false };
  refused(`codec_${codec.toLowerCase()}`, kArrowRs, settings, writeArrowRs({ text: utf8(texts(20, 17)) }, settings),
          'text', codec, (m) => expect(m.columns.text.codec === codec, `codec ${codec}`));
}
// Refused: an encoding no writer uses for strings. No writer writes one, so a PLAIN page's DataPageHeader.encoding is
// patched to BYTE_STREAM_SPLIT (9): the bytes 0x15 <num_values> 0x15 0x00 become 0x15 <num_values> 0x15 0x12 (i32
// fields 1 and 2, zigzag varints). arrow-rs writes no page CRC, so nothing else changes.
{
  const settings = { v2: false, codec: 'UNCOMPRESSED', dictionary: false, patched: 'DataPageHeader.encoding = 9' };
  const bytes = writeArrowRs({ 'text!': utf8(texts(20, 21)) }, settings);
  const pattern = [0x15, 40, 0x15, 0x00];  // num_values 20 (zigzag 40), encoding PLAIN
  const at = [];
  for (let i = 0; i + pattern.length <= bytes.length; i++) {
    if (pattern.every((b, j) => bytes[i + j] === b)) at.push(i);
  }
  expect(at.length === 1, `encoding patch: the pattern occurs ${at.length} times`);
  bytes[at[0] + 3] = 0x12;
  refused('encoding_byte_stream_split', kArrowRs, settings, bytes, 'text', 'BYTE_STREAM_SPLIT', () => {});
}

writeFileSync(path.join(here, 'fixtures.json'), JSON.stringify(manifest, null, 1) + '\n');
console.log(`wrote ${manifest.fixtures.length} fixtures to ${here}`);
