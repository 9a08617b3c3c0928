import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dataSection, markSmtpSafe } from '../../src/sending/smtp/data.js';

/*
 * The DATA section's bytes (pure logic; the same rules end to end are in smtp-client.test.ts): what is written for a
 * message given as buffers, seams between buffers included.
 */

const wire = (...chunks: string[]) => Buffer.concat(dataSection(chunks.map((c) => Buffer.from(c, 'latin1')))).toString('latin1');

describe('dataSection', () => {
  test('clean buffers are passed through, uncopied, and the end-of-data line follows', () => {
    const head = Buffer.from('Subject: x\r\n\r\nbody\r\n', 'latin1');
    const out = dataSection([head]);
    assert.equal(out[0], head, 'the same buffer object, not a copy');
    assert.equal(Buffer.concat(out).toString('latin1'), 'Subject: x\r\n\r\nbody\r\n.\r\n');
  });

  test('a dot that starts a line is doubled: first byte, inside a buffer, and at a seam after a line end', () => {
    assert.equal(wire('.a\r\n'), '..a\r\n.\r\n');
    assert.equal(wire('a\r\n.b\r\n.\r\n'), 'a\r\n..b\r\n..\r\n.\r\n');
    assert.equal(wire('a\r\n', '.b\r\n'), 'a\r\n..b\r\n.\r\n');
    assert.equal(wire('a', '.b\r\n'), 'a.b\r\n.\r\n', 'not at a line start: left alone');
    assert.equal(wire('.'), '..\r\n.\r\n');
  });

  test('bare CR and LF become CRLF, a dot after them is doubled, and no buffer can end the data early', () => {
    assert.equal(wire('a\nb\rc\r\n'), 'a\r\nb\r\nc\r\n.\r\n');
    assert.equal(wire('x\n.\ny'), 'x\r\n..\r\ny\r\n.\r\n');
    assert.equal(wire('x\r.\r'), 'x\r\n..\r\n.\r\n');
    assert.equal(wire('ends in CR\r'), 'ends in CR\r\n.\r\n');
    assert.equal(wire('\nstarts with LF\r\n'), '\r\nstarts with LF\r\n.\r\n');
  });

  test('an empty message or empty buffers still end properly', () => {
    assert.equal(wire(), '.\r\n');
    assert.equal(wire('', 'a\r\n', ''), 'a\r\n.\r\n');
    assert.equal(wire('no line end'), 'no line end\r\n.\r\n');
  });

  test('markSmtpSafe checks once: a clean buffer is itself, a dirty one is rewritten, and both pass uncopied later', () => {
    const clean = Buffer.from('--b\r\nQUJD\r\n', 'latin1');
    assert.equal(markSmtpSafe(clean), clean);
    const dirty = Buffer.from('x\n.y', 'latin1');
    const fixed = markSmtpSafe(dirty);
    assert.notEqual(fixed, dirty);
    assert.equal(fixed.toString('latin1'), 'x\r\n..y');
    const out = dataSection([Buffer.from('H: v\r\n\r\n', 'latin1'), fixed, clean]);
    assert.equal(out[1], fixed);
    assert.equal(out[2], clean);
  });
});
