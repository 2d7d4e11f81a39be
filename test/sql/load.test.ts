// catalog.load of a CSV file that is not what a load expects: empty, with rows of the wrong width, without a
// header line, with a value that does not parse. Each says what is wrong with the file, where, and what to
// do; nothing is committed. Files in other dialects (semicolons, tabs, CRLF, quotes, gzip) load.
import { writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCode, openCatalog, tempDir } from '../helpers.js';

async function table() {
  const c = await openCatalog();
  await c.sql('CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR, amount DOUBLE)');
  return c;
}

const file = async (name: string, text: string | Buffer) => {
  const f = path.join(await tempDir(), name);
  await writeFile(f, text);
  return f;
};

describe('load of a CSV file', () => {
  it('an empty file, rows of the wrong width, a missing header and a bad value each say what and where; nothing commits', async () => {
    const c = await table();
    const before = (await c.snapshots()).length;
    const cases: [string, string, RegExp][] = [
      ['empty.csv', '', /empty\.csv is empty; a CSV file to load starts with a header line naming its columns$/],
      ['short.csv', 'id,name,amount\n1,a,2.5\n2,b\n', /short\.csv: CSV Error on Line: 3; Original Line: 2,b; Expected Number of Columns: 3 Found: 2\. Nothing was loaded: fix that line/],
      ['long.csv', 'id,name,amount\n1,a,2.5\n2,b,3,4\n3,c,1\n', /long\.csv: CSV Error on Line: 3; Original Line: 2,b,3,4; Expected Number of Columns: 3 Found: 4\./],
      ['ragged.csv', 'id,name,amount\n1,a,2.5\n2,b\n3,c,1.0,extra\n', /ragged\.csv: CSV Error on Line: 3; .*Found: 2\./],
      ['headless.csv', '1,a,2.5\n2,b,3\n', /the first line of .*headless\.csv names "1", "a", "2\.5", none of them a column of "main"\."t"; "main"\."t" has "id", "name", "amount": give the file a header line naming them/],
      ['bad-value.csv', 'id,name,amount\n1,a,2.5\n2,b,lots\n', /bad-value\.csv: CSV Error on Line: 3; .*"amount".*lots/],
    ];
    for (const [name, text, said] of cases) await expectCode(c.load('main', 't', await file(name, text)), 'INVALID_ARGUMENT', said);
    expect((await c.snapshots()).length).toBe(before);
    expect((await c.sql('SELECT count(*)::INT AS n FROM t')).rows).toEqual([{ n: 0 }]);
  });

  it('semicolons, tabs, CRLF line ends, quoted fields and gzip load as written', async () => {
    const c = await table();
    const loads: [string, string | Buffer][] = [
      ['semi.csv', 'id;name;amount\n1;a;2.5\n'],
      ['tabs.tsv', 'id\tname\tamount\n2\tb\t3\n'],
      ['crlf.csv', 'id,name,amount\r\n3,"c ""quoted"", with comma",1\r\n'],
      ['zipped.csv.gz', gzipSync('name,id\nd,4\n')],
      ['header-only.csv', 'id,name,amount\n'],
    ];
    for (const [name, text] of loads) await c.load('main', 't', await file(name, text));
    expect((await c.sql('SELECT id::INT AS id, name, amount FROM t ORDER BY id')).rows).toEqual([
      { id: 1, name: 'a', amount: 2.5 },
      { id: 2, name: 'b', amount: 3 },
      { id: 3, name: 'c "quoted", with comma', amount: 1 },
      { id: 4, name: 'd', amount: null },
    ]);
  });

  it('commits with the author and message given, or says whose load it was not', async () => {
    const c = await table();
    const { snapshot } = await c.load('main', 't', await file('a.csv', 'id,name\n1,a\n'), { author: 'etl', message: 'January' });
    const plain = await c.load('main', 't', await file('b.csv', 'id,name\n2,b\n'));
    const history = new Map((await c.snapshots()).map((x) => [x.id, x]));
    expect([history.get(snapshot!)!.author, history.get(snapshot!)!.message]).toEqual(['etl', 'January']);
    expect([history.get(plain.snapshot!)!.author, history.get(plain.snapshot!)!.message]).toEqual([null, 'load b.csv into main.t']);
    await expectCode(c.load('main', 't', await file('c.csv', 'id\n3\n'), { author: 7 } as never), 'INVALID_ARGUMENT', /author must be a string/);
  });
});
