import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/*
 * A tiny IMAP4rev1 server on loopback for the bounce-mailbox tests: in-memory folders, the commands an IMAP client
 * needs to log in, list and create folders, select, search by keyword, fetch whole (or partial) messages, move and
 * store flags — and a transcript of every command it was sent, so a test can see what the client did (and that it
 * never deleted anything). No npm package offered a maintained IMAP server fit for tests (hoodiecrow-imap and its
 * kin are unmaintained), so this plays the server's side of the recorded conversation.
 */

export interface StoredMessage {
  uid: number;
  flags: Set<string>;
  source: Buffer;
}

export interface ImapServerOptions {
  user?: string;
  pass?: string;
  /** Answer NO to MOVE (the client must then flag instead). */
  refuseMove?: boolean;
  /** Refuse custom keywords (PERMANENTFLAGS without \*). */
  noKeywords?: boolean;
}

export interface TestImapServer {
  readonly port: number;
  readonly url: string;
  /** Folder name → messages. */
  readonly folders: Map<string, StoredMessage[]>;
  /** Every command line received (LOGIN's password masked). */
  readonly transcript: string[];
  add(source: Buffer, folder?: string): number;
  close(): Promise<void>;
}

export async function startImapServer(options: ImapServerOptions = {}): Promise<TestImapServer> {
  const user = options.user ?? 'bounces';
  const pass = options.pass ?? 'secret pass';
  const folders = new Map<string, StoredMessage[]>([['INBOX', []]]);
  const nextUid = new Map<string, number>([['INBOX', 1]]);
  const transcript: string[] = [];
  const sockets = new Set<Socket>();
  const capabilities = 'IMAP4rev1 MOVE UIDPLUS';

  const add = (source: Buffer, folder = 'INBOX') => {
    if (!folders.has(folder)) {
      folders.set(folder, []);
      nextUid.set(folder, 1);
    }
    const uid = nextUid.get(folder)!;
    nextUid.set(folder, uid + 1);
    folders.get(folder)!.push({ uid, flags: new Set(), source });
    return uid;
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const session = { authenticated: false, selected: null as string | null };
    const send = (text: string | Buffer) => {
      if (!socket.destroyed) socket.write(text);
    };
    send(`* OK [CAPABILITY ${capabilities}] test IMAP server ready\r\n`);

    let buffer = Buffer.alloc(0);
    let pending: { line: string; need: number } | null = null;
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (pending) {
          if (buffer.length < pending.need) return;
          // The literal's bytes become a quoted string of the command line.
          pending.line += `"${buffer.subarray(0, pending.need).toString('utf8').replace(/[\\"]/g, '\\$&')}"`;
          buffer = buffer.subarray(pending.need);
          const rest = buffer.indexOf('\r\n');
          if (rest < 0) return;
          pending.line += buffer.subarray(0, rest).toString('utf8');
          buffer = buffer.subarray(rest + 2);
        } else {
          const end = buffer.indexOf('\r\n');
          if (end < 0) return;
          pending = { line: buffer.subarray(0, end).toString('utf8'), need: 0 };
          buffer = buffer.subarray(end + 2);
        }
        // A literal at the end of the line: `{n}` asks to go on (`{n+}` does not), then n bytes follow.
        const literal = /\{(\d+)(\+?)\}$/.exec(pending.line);
        if (literal) {
          pending.line = pending.line.slice(0, literal.index);
          pending.need = Number(literal[1]);
          if (!literal[2]) send('+ go ahead\r\n');
          continue;
        }
        const line = pending.line;
        pending = null;
        handle(line);
      }
    });

    /** `"quoted"` strings (literals were made quoted strings) → plain strings; the rest as given. */
    const args = (text: string): string[] => {
      const out: string[] = [];
      const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
      for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!);
      return out;
    };

    const handle = (line: string) => {
      const space = line.indexOf(' ');
      const tag = line.slice(0, space);
      let rest = line.slice(space + 1);
      let command = rest.split(' ', 1)[0]!.toUpperCase();
      let uidMode = false;
      if (command === 'UID') {
        uidMode = true;
        rest = rest.slice(4);
        command = rest.split(' ', 1)[0]!.toUpperCase();
      }
      const params = rest.slice(command.length).trim();
      transcript.push(command === 'LOGIN' ? `${uidMode ? 'UID ' : ''}LOGIN ***` : `${uidMode ? 'UID ' : ''}${command} ${params}`.trim());
      const ok = (text = 'done') => send(`${tag} OK ${text}\r\n`);
      const no = (text: string) => send(`${tag} NO ${text}\r\n`);
      const bad = (text: string) => send(`${tag} BAD ${text}\r\n`);
      const box = () => folders.get(session.selected ?? '') ?? [];

      if (command === 'CAPABILITY') {
        send(`* CAPABILITY ${capabilities}\r\n`);
        return ok();
      }
      if (command === 'NOOP' || command === 'CHECK') return ok();
      if (command === 'LOGOUT') {
        send('* BYE logging out\r\n');
        ok();
        return socket.end();
      }
      if (command === 'LOGIN') {
        const [u, p] = args(params);
        if (u === user && p === pass) {
          session.authenticated = true;
          return ok(`[CAPABILITY ${capabilities}] logged in`);
        }
        return no('[AUTHENTICATIONFAILED] invalid credentials');
      }
      if (!session.authenticated) return bad('log in first');
      if (command === 'LIST' || command === 'LSUB') {
        const [reference, pattern] = args(params);
        // `LIST "" ""` asks only for the hierarchy delimiter (RFC 3501 §6.3.8).
        if (pattern === '') send(`* ${command} (\\Noselect) "/" ""\r\n`);
        else for (const name of folders.keys()) if (name.startsWith(reference ?? '')) send(`* ${command} (\\HasNoChildren) "/" "${name}"\r\n`);
        return ok();
      }
      if (command === 'SUBSCRIBE' || command === 'UNSUBSCRIBE') return ok();
      if (command === 'CREATE') {
        const [name] = args(params);
        if (!name) return bad('name?');
        if (folders.has(name)) return no('[ALREADYEXISTS] exists');
        folders.set(name, []);
        nextUid.set(name, 1);
        return ok();
      }
      if (command === 'SELECT' || command === 'EXAMINE') {
        const [name] = args(params);
        const found = [...folders.keys()].find((f) => f.toUpperCase() === (name ?? '').toUpperCase());
        if (!found) return no('[NONEXISTENT] no such mailbox');
        session.selected = found;
        const messages = folders.get(found)!;
        send('* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft)\r\n');
        send(`* OK [PERMANENTFLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft${options.noKeywords ? '' : ' \\*'})] flags\r\n`);
        send(`* ${messages.length} EXISTS\r\n* 0 RECENT\r\n* OK [UIDVALIDITY 7] uids\r\n* OK [UIDNEXT ${nextUid.get(found)}] next\r\n`);
        return ok(`[${command === 'SELECT' ? 'READ-WRITE' : 'READ-ONLY'}] selected`);
      }
      if (command === 'CLOSE' || command === 'UNSELECT') {
        session.selected = null;
        return ok();
      }
      if (!session.selected) return bad('select a mailbox first');
      const messages = box();
      const inSet = (set: string) => {
        const last = messages.at(-1)?.uid ?? 0;
        const ranges = set.split(',').map((r) => r.split(':').map((n) => (n === '*' ? last : Number(n))));
        return messages.filter((m, i) => {
          const key = uidMode ? m.uid : i + 1;
          return ranges.some(([a, b]) => (b === undefined ? key === a : key >= Math.min(a!, b) && key <= Math.max(a!, b)));
        });
      };
      if (command === 'SEARCH') {
        const terms = args(params);
        let hits = messages;
        for (let i = 0; i < terms.length; i++) {
          const term = terms[i]!.toUpperCase();
          if (term === 'ALL') continue;
          if (term === 'UNKEYWORD') {
            const k = terms[++i]!;
            hits = hits.filter((m) => !m.flags.has(k));
          } else if (term === 'KEYWORD') {
            const k = terms[++i]!;
            hits = hits.filter((m) => m.flags.has(k));
          } else if (term === 'NOT' && terms[i + 1]?.toUpperCase() === 'KEYWORD') {
            const k = terms[i + 2]!;
            i += 2;
            hits = hits.filter((m) => !m.flags.has(k));
          } else if (term === 'UID') {
            const set = inSet(terms[++i]!);
            hits = hits.filter((m) => set.includes(m));
          } else {
            return bad(`unsupported search key ${term}`);
          }
        }
        send(`* SEARCH${hits.map((m) => ` ${uidMode ? m.uid : messages.indexOf(m) + 1}`).join('')}\r\n`);
        return ok();
      }
      if (command === 'FETCH') {
        const [set] = params.split(' ', 1);
        const items = params.slice(set!.length).toUpperCase();
        const partial = /BODY(?:\.PEEK)?\[\]<(\d+)\.(\d+)>/.exec(items);
        for (const m of inSet(set!)) {
          const seq = messages.indexOf(m) + 1;
          const parts = [`UID ${m.uid}`];
          if (items.includes('FLAGS')) parts.push(`FLAGS (${[...m.flags].join(' ')})`);
          let tail: Buffer | null = null;
          if (items.includes('BODY')) {
            const start = partial ? Number(partial[1]) : 0;
            const bytes = partial ? m.source.subarray(start, start + Number(partial[2])) : m.source;
            parts.push(`BODY[]${partial ? `<${start}>` : ''} {${bytes.length}}`);
            tail = bytes;
            if (!items.includes('PEEK')) m.flags.add('\\Seen');
          }
          if (tail) {
            send(`* ${seq} FETCH (${parts.join(' ')}\r\n`);
            send(tail);
            send(')\r\n');
          } else {
            send(`* ${seq} FETCH (${parts.join(' ')})\r\n`);
          }
        }
        return ok();
      }
      if (command === 'STORE') {
        const [set, operation, ...flagWords] = args(params.replace(/[()]/g, ' '));
        const op = (operation ?? '').toUpperCase();
        for (const m of inSet(set!)) {
          if (op.startsWith('+')) flagWords.forEach((f) => (f.startsWith('\\') || !options.noKeywords) && m.flags.add(f));
          else if (op.startsWith('-')) flagWords.forEach((f) => m.flags.delete(f));
          else m.flags = new Set(flagWords);
          if (!op.includes('SILENT')) send(`* ${messages.indexOf(m) + 1} FETCH (UID ${m.uid} FLAGS (${[...m.flags].join(' ')}))\r\n`);
        }
        return ok();
      }
      if (command === 'MOVE' || command === 'COPY') {
        const [set, target] = args(params);
        if (command === 'MOVE' && options.refuseMove) return no('[CANNOT] moving is not allowed here');
        const destination = folders.get(target ?? '');
        if (!destination) return no('[TRYCREATE] no such mailbox');
        const chosen = inSet(set!);
        const newUids = chosen.map((m) => add(m.source, target));
        send(`* OK [COPYUID 7 ${chosen.map((m) => m.uid).join(',')} ${newUids.join(',')}] copied\r\n`);
        if (command === 'MOVE') {
          for (const m of [...chosen].reverse()) {
            send(`* ${messages.indexOf(m) + 1} EXPUNGE\r\n`);
            messages.splice(messages.indexOf(m), 1);
          }
        }
        return ok();
      }
      return bad(`command ${command} is not supported by this test server`);
    };
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `imap://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${port}/INBOX`,
    folders,
    transcript,
    add,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
