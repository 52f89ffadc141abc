// One node ssh2 connection (the `ssh2` npm package, 0.8.x or 1.x: the same Client API).
// Args: HOST PORT [USER KEYFILE COMMAND]. Without a key it connects and stops once the key exchange has begun
// (what `sshbench clients record` reads); with one it logs in, runs COMMAND, prints its output and exits 0.
const fs = require('fs');
const { Client } = require('ssh2');
const [host, port, user, keyfile, command] = process.argv.slice(2);
const conn = new Client();
conn.on('error', (err) => { console.error(String(err)); process.exit(1); });
conn.on('ready', () => {
  if (!command) { conn.end(); return; }
  conn.exec(command, (err, stream) => {
    if (err) { console.error(String(err)); process.exit(1); }
    stream.on('data', (d) => process.stdout.write(d));
    stream.on('close', () => conn.end());
  });
});
conn.connect({ host, port: Number(port), username: user || 'x', readyTimeout: 20000,
               privateKey: keyfile ? fs.readFileSync(keyfile) : undefined,
               password: keyfile ? undefined : 'x', hostHash: 'sha256', hostVerifier: () => true });
