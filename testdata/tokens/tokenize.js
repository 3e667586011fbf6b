// Tokenizes the benchmark texts with tiktoken 1.0.22 (the npm package, OpenAI's Rust BPE in wasm).
const fs = require('fs');
const {get_encoding} = require(process.argv[2]);
for (const enc of ['cl100k_base', 'o200k_base']) {
  const e = get_encoding(enc);
  for (const f of ['english.txt', 'code.go.txt', 'recordings.txt', 'long.english.txt', 'long.chinese.txt', 'long.code.txt']) {
    const ids = e.encode(fs.readFileSync('text/' + f, 'utf8'));
    const b = Buffer.alloc(ids.length * 4);
    ids.forEach((id, i) => b.writeUInt32BE(id, i * 4));
    const out = 'text/' + f.replace(/\.txt$/, '') + '.' + enc + '.ids';
    fs.writeFileSync(out, b);
    const wide = ids.filter(x => x > 65535).length;
    console.log(out, ids.length, 'wide', wide, (100*wide/ids.length).toFixed(1)+'%');
  }
  e.free();
}
