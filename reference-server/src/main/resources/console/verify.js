/*
 * agentauth receipt verifier for the browser and Node.js: the same steps, in the same order and
 * under the same names, as the Java verifier (dev.agentauth.verifier.ReceiptVerifier and
 * ChainCheck), with Ed25519 through WebCrypto.
 *
 * A classic script, not an ES module, so that offline.html works opened from disk (browsers refuse
 * module scripts from file:// URLs). It defines globalThis.AgentAuthVerify, and module.exports under
 * Node.js; the console's modules import it for that side effect.
 *
 *   const v = await AgentAuthVerify.createVerifier(keysDocumentText, { pins: ['SHA256:...'] });
 *   const result = await v.verify(receiptText);   // {valid, step, message, receiptId}
 *   const results = await v.verifyAll(AgentAuthVerify.splitReceipts(fileText));   // in order
 *
 * What it checks, step by step (the names are the Java verifier's VerificationStep):
 *   PARSE       the text is one JSON object, no duplicate member names, nothing after it
 *   VERSION     version is "1.0"
 *   SCHEMA      members and types, issued_at RFC 3339 with offset, signature {alg, key_id, value}
 *               with value unpadded base64url of 64 bytes, policy_eval shape, event rules, and a
 *               canonical form (integers within +-(2^53-1) only, no lone surrogates)
 *   PAIRING     the decision suits the receipt kind
 *   ALGORITHM   signature.alg is "Ed25519"
 *   TIMESTAMP   issued_at at most 5 minutes ahead of the verifier's clock
 *   WORKSPACE   workspace_id is the keys document's
 *   KEY_NOT_FOUND  the key_id is in the keys document (and pinned, when pins are given)
 *   KEY_NOT_ACTIVE the key was active at issued_at
 *   SIGNATURE   Ed25519 over the canonical form of the receipt without its signature member
 */
(function (root) {
  'use strict';

  var MAX_SAFE = 9007199254740991n;
  var MAX_DEPTH = 1000;
  var MAX_FUTURE_SKEW_NANOS = 300n * 1000000000n;

  // ------------------------------------------------------------------------------------------
  // Strict JSON: objects are Maps (member order kept, duplicates refused), numbers keep their
  // text so that 1.0 and 1e2 stay distinguishable from 1, as they are for the Java verifier.

  function JsonNumber(text) {
    this.text = text;
  }

  function ParseError(message) {
    this.message = message;
  }

  function parseJson(text) {
    var i = 0;
    var n = text.length;
    function fail(what) {
      throw new ParseError(what + ' at offset ' + i);
    }
    function ws() {
      while (i < n) {
        var c = text.charCodeAt(i);
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
          i++;
        } else {
          break;
        }
      }
    }
    function value(depth) {
      ws();
      if (i >= n) fail('unexpected end of input');
      var c = text.charCodeAt(i);
      if (c === 0x7b) return object(depth + 1);
      if (c === 0x5b) return array(depth + 1);
      if (c === 0x22) return string();
      if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return number();
      if (text.startsWith('true', i)) {
        i += 4;
        return true;
      }
      if (text.startsWith('false', i)) {
        i += 5;
        return false;
      }
      if (text.startsWith('null', i)) {
        i += 4;
        return null;
      }
      fail('unexpected character ' + JSON.stringify(text.charAt(i)));
    }
    function object(depth) {
      if (depth > MAX_DEPTH) fail('nesting deeper than ' + MAX_DEPTH + ' levels');
      i++;
      var map = new Map();
      ws();
      if (text.charCodeAt(i) === 0x7d) {
        i++;
        return map;
      }
      for (;;) {
        ws();
        if (text.charCodeAt(i) !== 0x22) fail('expected a member name');
        var key = string();
        if (map.has(key)) fail('duplicate member name ' + JSON.stringify(key));
        ws();
        if (text.charCodeAt(i) !== 0x3a) fail("expected ':'");
        i++;
        map.set(key, value(depth));
        ws();
        var c = text.charCodeAt(i);
        i++;
        if (c === 0x7d) return map;
        if (c !== 0x2c) {
          i--;
          fail("expected ',' or '}'");
        }
      }
    }
    function array(depth) {
      if (depth > MAX_DEPTH) fail('nesting deeper than ' + MAX_DEPTH + ' levels');
      i++;
      var list = [];
      ws();
      if (text.charCodeAt(i) === 0x5d) {
        i++;
        return list;
      }
      for (;;) {
        list.push(value(depth));
        ws();
        var c = text.charCodeAt(i);
        i++;
        if (c === 0x5d) return list;
        if (c !== 0x2c) {
          i--;
          fail("expected ',' or ']'");
        }
      }
    }
    function string() {
      i++;
      var start = i;
      var out = null;
      for (;;) {
        if (i >= n) fail('unterminated string');
        var c = text.charCodeAt(i);
        if (c === 0x22) {
          var s = out === null ? text.slice(start, i) : out + text.slice(start, i);
          i++;
          return s;
        }
        if (c < 0x20) fail('unescaped control character in a string');
        if (c !== 0x5c) {
          i++;
          continue;
        }
        out = (out === null ? '' : out) + text.slice(start, i);
        i++;
        var e = text.charAt(i);
        i++;
        switch (e) {
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          case '/':
            out += '/';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'u': {
            var hex = text.slice(i, i + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad \\u escape');
            out += String.fromCharCode(parseInt(hex, 16));
            i += 4;
            break;
          }
          default:
            i--;
            fail('bad escape');
        }
        start = i;
      }
    }
    function number() {
      var start = i;
      if (text.charCodeAt(i) === 0x2d) i++;
      var c = text.charCodeAt(i);
      if (c === 0x30) {
        i++;
      } else if (c >= 0x31 && c <= 0x39) {
        while (i < n && (c = text.charCodeAt(i)) >= 0x30 && c <= 0x39) i++;
      } else {
        fail('bad number');
      }
      if (text.charCodeAt(i) === 0x2e) {
        i++;
        var d = i;
        while (i < n && (c = text.charCodeAt(i)) >= 0x30 && c <= 0x39) i++;
        if (i === d) fail('bad number');
      }
      c = text.charCodeAt(i);
      if (c === 0x65 || c === 0x45) {
        i++;
        c = text.charCodeAt(i);
        if (c === 0x2b || c === 0x2d) i++;
        var e = i;
        while (i < n && (c = text.charCodeAt(i)) >= 0x30 && c <= 0x39) i++;
        if (i === e) fail('bad number');
      }
      return new JsonNumber(text.slice(start, i));
    }
    var result = value(0);
    ws();
    if (i < n) fail('trailing content after the JSON value');
    return result;
  }

  function typeName(v) {
    if (v === null) return 'null';
    if (v instanceof Map) return 'object';
    if (Array.isArray(v)) return 'array';
    if (v instanceof JsonNumber) return 'number';
    return typeof v;
  }

  function show(v) {
    if (v === undefined) return 'missing';
    if (v instanceof JsonNumber) return v.text;
    if (typeof v === 'string') return JSON.stringify(v.length > 80 ? v.slice(0, 80) + '...' : v);
    return typeName(v) === 'object' || typeName(v) === 'array' ? 'an ' + typeName(v) : String(v);
  }

  /** Converts a tree back to plain JavaScript (numbers as Number), for display only. */
  function toPlain(v) {
    if (v instanceof Map) {
      var o = {};
      v.forEach(function (val, key) {
        Object.defineProperty(o, key, {
          value: toPlain(val),
          enumerable: true,
          writable: true,
          configurable: true
        });
      });
      return o;
    }
    if (Array.isArray(v)) return v.map(toPlain);
    if (v instanceof JsonNumber) return Number(v.text);
    return v;
  }

  /** Converts plain JavaScript (as JSON.parse returns it) to a tree. */
  function fromPlain(v) {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
    if (typeof v === 'number') return new JsonNumber(String(v));
    if (Array.isArray(v)) return v.map(fromPlain);
    var m = new Map();
    Object.keys(v).forEach(function (k) {
      m.set(k, fromPlain(v[k]));
    });
    return m;
  }

  // ------------------------------------------------------------------------------------------
  // Canonical form: sorted keys (UTF-16 code units), minimal escapes with lowercase hex,
  // integers only within +-(2^53-1).

  function CanonicalError(path, message) {
    this.path = path;
    this.message = message;
  }

  function canonicalize(v) {
    return canonicalText(v, false);
  }

  function signingPayload(receipt) {
    return canonicalText(receipt, true);
  }

  // Two writers of one canonical form. The fast one (fastValue) keeps no path and builds one string;
  // whatever it cannot write (a fraction, an exponent, an unsafe integer, a lone surrogate, nesting
  // too deep, a value with no JSON form) makes it give up, and the careful one (writeValue) writes
  // the value again and throws the CanonicalError naming where the problem is. A valid receipt, the
  // common case, costs no path strings and no regular expressions.
  function canonicalText(v, omitSignature) {
    try {
      return fastValue(v, 0, omitSignature);
    } catch (e) {
      if (e !== GIVE_UP) throw e;
    }
    var parts = [];
    writeValue(v, parts, '$', 0, omitSignature);
    return parts.join('');
  }

  var GIVE_UP = { reason: 'the fast canonical writer gave up; the careful one names the problem' };

  var HEX = '0123456789abcdef';

  /**
   * The canonical text of an integer's JSON text: itself when it is a plain integer of at most 15
   * digits without a leading zero (always within +-(2^53-1)), else through BigInt; null when the
   * text is not an integer within +-(2^53-1) (a fraction, an exponent, too large).
   */
  function integerForm(t) {
    var n = t.length;
    var i = n > 0 && t.charCodeAt(0) === 0x2d ? 1 : 0;
    if (i === n) return null;
    for (var j = i; j < n; j++) {
      var c = t.charCodeAt(j);
      if (c < 0x30 || c > 0x39) return null;
    }
    if (n - i <= 15 && t.charCodeAt(i) !== 0x30) return t;
    var b = BigInt(t);
    return b > MAX_SAFE || b < -MAX_SAFE ? null : b.toString();
  }

  // Characters a string's canonical form escapes or checks: controls, '"', '\\', surrogates.
  var NEEDS_CARE = /[\u0000-\u001f"\\\ud800-\udfff]/;

  function fastString(s) {
    if (!NEEDS_CARE.test(s)) return '"' + s + '"';
    var out = null;
    var start = 0;
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c < 0x20 || c === 0x22 || c === 0x5c) {
        out = (out === null ? '"' : out) + s.slice(start, i) +
          (c < 0x20 ? '\\u00' + HEX[c >> 4] + HEX[c & 15] : '\\' + s.charAt(i));
        start = i + 1;
      } else if (c >= 0xd800 && c <= 0xdfff) {
        var low = s.charCodeAt(i + 1);
        if (c > 0xdbff || !(low >= 0xdc00 && low <= 0xdfff)) throw GIVE_UP;
        i++;
      }
    }
    return out === null ? '"' + s + '"' : out + s.slice(start) + '"';
  }

  function fastValue(v, depth, omitSignature) {
    if (typeof v === 'string') return fastString(v);
    if (v instanceof JsonNumber) {
      var t = integerForm(v.text);
      if (t === null) throw GIVE_UP;
      return t;
    }
    if (v === null) return 'null';
    if (v === true) return 'true';
    if (v === false) return 'false';
    if (depth >= MAX_DEPTH) throw GIVE_UP;
    var out;
    if (v instanceof Map) {
      var keys = [];
      for (var k of v.keys()) {
        if (!(omitSignature && k === 'signature')) keys.push(k);
      }
      keys.sort();
      out = '{';
      for (var j = 0; j < keys.length; j++) {
        if (j > 0) out += ',';
        out += fastString(keys[j]) + ':' + fastValue(v.get(keys[j]), depth + 1, false);
      }
      return out + '}';
    }
    if (Array.isArray(v)) {
      out = '[';
      for (var i = 0; i < v.length; i++) {
        if (i > 0) out += ',';
        out += fastValue(v[i], depth + 1, false);
      }
      return out + ']';
    }
    throw GIVE_UP;
  }

  function writeString(s, parts, path) {
    var out = '"';
    var start = 0;
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c < 0x20 || c === 0x22 || c === 0x5c) {
        out += s.slice(start, i);
        out += c < 0x20 ? '\\u00' + HEX[c >> 4] + HEX[c & 15] : '\\' + s.charAt(i);
        start = i + 1;
      } else if (c >= 0xd800 && c <= 0xdfff) {
        var low = s.charCodeAt(i + 1);
        if (c > 0xdbff || !(low >= 0xdc00 && low <= 0xdfff)) {
          throw new CanonicalError(
            path,
            'string contains a lone surrogate U+' + c.toString(16).toUpperCase() + ' at index ' + i +
              ' (not valid Unicode)'
          );
        }
        i++;
      }
    }
    parts.push(out + s.slice(start) + '"');
  }

  function writeValue(v, parts, path, depth, omitSignature) {
    if (v === null) {
      parts.push('null');
    } else if (v === true) {
      parts.push('true');
    } else if (v === false) {
      parts.push('false');
    } else if (typeof v === 'string') {
      writeString(v, parts, path);
    } else if (v instanceof JsonNumber) {
      var t = v.text;
      if (/[.eE]/.test(t)) {
        throw new CanonicalError(path, 'number ' + t + ' is not an integer (no fractions or exponents allowed)');
      }
      var b = BigInt(t);
      if (b > MAX_SAFE || b < -MAX_SAFE) {
        throw new CanonicalError(path, 'integer ' + t + ' is outside the safe range +-(2^53-1) = +-9007199254740991');
      }
      parts.push(b.toString());
    } else if (Array.isArray(v)) {
      if (depth + 1 > MAX_DEPTH) throw new CanonicalError(path, 'nesting deeper than ' + MAX_DEPTH + ' levels');
      parts.push('[');
      for (var i = 0; i < v.length; i++) {
        if (i > 0) parts.push(',');
        writeValue(v[i], parts, path + '[' + i + ']', depth + 1, false);
      }
      parts.push(']');
    } else if (v instanceof Map) {
      if (depth + 1 > MAX_DEPTH) throw new CanonicalError(path, 'nesting deeper than ' + MAX_DEPTH + ' levels');
      var keys = [];
      v.forEach(function (_, k) {
        if (!(omitSignature && k === 'signature')) keys.push(k);
      });
      keys.sort();
      parts.push('{');
      for (var j = 0; j < keys.length; j++) {
        if (j > 0) parts.push(',');
        var key = keys[j];
        var sub = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? path + '.' + key : path + '[' + JSON.stringify(key) + ']';
        writeString(key, parts, sub);
        parts.push(':');
        writeValue(v.get(key), parts, sub, depth + 1, false);
      }
      parts.push('}');
    } else {
      throw new CanonicalError(path, 'a ' + typeof v + ' has no JSON representation');
    }
  }

  // ------------------------------------------------------------------------------------------
  // Base64url (unpadded, canonical trailing bits) and RFC 3339 instants.

  var B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  var DECODE = new Int8Array(128).fill(-1);
  for (var k = 0; k < 64; k++) DECODE[B64.charCodeAt(k)] = k;

  function base64UrlDecode(s) {
    var n = s.length;
    for (var i = 0; i < n; i++) {
      var c = s.charCodeAt(i);
      if (c === 0x3d) throw new Error("padding '=' is not allowed (at index " + i + ')');
      if (c >= 128 || DECODE[c] < 0) {
        throw new Error('character ' + JSON.stringify(s.charAt(i)) + ' at index ' + i + ' is outside the base64url alphabet');
      }
    }
    var rem = n & 3;
    if (rem === 1) throw new Error('length ' + n + ' is not a valid base64url length');
    var out = new Uint8Array(((n >> 2) * 3) + (rem === 0 ? 0 : rem - 1));
    var o = 0;
    var j = 0;
    for (; j + 4 <= n; j += 4) {
      var v = (DECODE[s.charCodeAt(j)] << 18) | (DECODE[s.charCodeAt(j + 1)] << 12) |
        (DECODE[s.charCodeAt(j + 2)] << 6) | DECODE[s.charCodeAt(j + 3)];
      out[o++] = v >> 16;
      out[o++] = (v >> 8) & 255;
      out[o++] = v & 255;
    }
    if (rem === 2) {
      var a = DECODE[s.charCodeAt(j)];
      var b = DECODE[s.charCodeAt(j + 1)];
      if ((b & 15) !== 0) throw new Error('non-zero trailing bits (not the canonical encoding)');
      out[o] = (a << 2) | (b >> 4);
    } else if (rem === 3) {
      var a3 = DECODE[s.charCodeAt(j)];
      var b3 = DECODE[s.charCodeAt(j + 1)];
      var c3 = DECODE[s.charCodeAt(j + 2)];
      if ((c3 & 3) !== 0) throw new Error('non-zero trailing bits (not the canonical encoding)');
      out[o++] = ((a3 << 2) | (b3 >> 4)) & 255;
      out[o] = ((b3 << 4) | (c3 >> 2)) & 255;
    }
    return out;
  }

  function base64UrlEncode(bytes) {
    var s = '';
    var i = 0;
    for (; i + 3 <= bytes.length; i += 3) {
      var v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
      s += B64[v >> 18] + B64[(v >> 12) & 63] + B64[(v >> 6) & 63] + B64[v & 63];
    }
    var rem = bytes.length - i;
    if (rem === 1) {
      var a = bytes[i] << 16;
      s += B64[a >> 18] + B64[(a >> 12) & 63];
    } else if (rem === 2) {
      var b = (bytes[i] << 16) | (bytes[i + 1] << 8);
      s += B64[b >> 18] + B64[(b >> 12) & 63] + B64[(b >> 6) & 63];
    }
    return s;
  }

  function digits(s, from, count) {
    var v = 0;
    for (var i = from; i < from + count; i++) {
      var c = s.charCodeAt(i);
      if (!(c >= 0x30 && c <= 0x39)) return -1;
      v = v * 10 + (c - 0x30);
    }
    return v;
  }

  function daysInMonth(y, m) {
    if (m === 2) return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28;
    return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
  }

  function epochDay(year, month, day) {
    var y = month <= 2 ? year - 1 : year;
    var era = Math.trunc((y >= 0 ? y : y - 399) / 400);
    var yoe = y - era * 400;
    var doy = Math.trunc((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
    var doe = yoe * 365 + Math.trunc(yoe / 4) - Math.trunc(yoe / 100) + doy;
    return era * 146097 + doe - 719468;
  }

  /** An RFC 3339 instant with offset as BigInt nanoseconds since the epoch, or null. */
  function parseInstant(s) {
    var n = s.length;
    if (n < 20) return null;
    var year = digits(s, 0, 4);
    var month = digits(s, 5, 2);
    var day = digits(s, 8, 2);
    var hour = digits(s, 11, 2);
    var minute = digits(s, 14, 2);
    var second = digits(s, 17, 2);
    if ((year | month | day | hour | minute | second) < 0 || s[4] !== '-' || s[7] !== '-' ||
        (s[10] !== 'T' && s[10] !== 't') || s[13] !== ':' || s[16] !== ':') {
      return null;
    }
    if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 ||
        minute > 59 || second > 59) {
      return null;
    }
    var i = 19;
    var nanos = 0;
    if (s[i] === '.') {
      var start = ++i;
      while (i < n) {
        var c = s.charCodeAt(i);
        if (c < 0x30 || c > 0x39) break;
        if (i - start < 9) nanos = nanos * 10 + (c - 0x30);
        i++;
      }
      var count = i - start;
      if (count === 0) return null;
      for (var z = count; z < 9; z++) nanos *= 10;
    }
    if (i >= n) return null;
    var ch = s[i];
    var offset;
    if (ch === 'Z' || ch === 'z') {
      if (i + 1 !== n) return null;
      offset = 0;
    } else if (ch === '+' || ch === '-') {
      if (i + 6 !== n || s[i + 3] !== ':') return null;
      var oh = digits(s, i + 1, 2);
      var om = digits(s, i + 4, 2);
      if (oh < 0 || om < 0 || oh > 23 || om > 59) return null;
      offset = (oh * 3600 + om * 60) * (ch === '-' ? -1 : 1);
    } else {
      return null;
    }
    var epochSecond = epochDay(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset;
    return BigInt(epochSecond) * 1000000000n + BigInt(nanos);
  }

  function formatInstant(nanos) {
    var ms = Number(nanos / 1000000n);
    return new Date(ms).toISOString();
  }

  // ------------------------------------------------------------------------------------------
  // Keys documents and fingerprints.

  function KeysDocumentError(message) {
    this.message = message;
  }
  KeysDocumentError.prototype.toString = function () {
    return 'KeysDocumentError: ' + this.message;
  };

  function subtle() {
    var c = root.crypto;
    if (!c || !c.subtle) {
      throw new KeysDocumentError(
        'this page has no WebCrypto (crypto.subtle): open it over https://, from localhost or from disk'
      );
    }
    return c.subtle;
  }

  /** The fingerprint of a raw 32-byte public key: "SHA256:" + unpadded base64url SHA-256. */
  async function fingerprint(publicKey) {
    var digest = await subtle().digest('SHA-256', publicKey);
    return 'SHA256:' + base64UrlEncode(new Uint8Array(digest));
  }

  function validFingerprint(fp) {
    if (typeof fp !== 'string' || !fp.startsWith('SHA256:')) {
      return 'a key fingerprint starts with "SHA256:" followed by the unpadded base64url SHA-256 of the raw public key';
    }
    var bytes;
    try {
      bytes = base64UrlDecode(fp.slice(7));
    } catch (e) {
      return 'the digest after "SHA256:" must be unpadded base64url: ' + e.message;
    }
    if (bytes.length !== 32) {
      return 'the digest after "SHA256:" decodes to ' + bytes.length + ' bytes; a SHA-256 digest is 32 (43 base64url characters)';
    }
    return null;
  }

  async function parseKeysDocument(doc) {
    if (typeof doc === 'string') {
      try {
        doc = parseJson(doc);
      } catch (e) {
        throw new KeysDocumentError('keys document is not valid JSON: ' + e.message);
      }
    } else if (!(doc instanceof Map)) {
      doc = fromPlain(doc);
    }
    if (!(doc instanceof Map)) throw new KeysDocumentError('keys document must be a JSON object, found ' + typeName(doc));
    var workspaceId = nonEmpty(doc, 'workspace_id', 'workspace_id');
    var keys = doc.get('keys');
    if (keys === undefined) throw new KeysDocumentError('keys document has no keys member');
    if (!Array.isArray(keys)) throw new KeysDocumentError('keys document: keys must be an array, found ' + typeName(keys));
    if (keys.length === 0) throw new KeysDocumentError('keys document for workspace ' + workspaceId + ' lists no keys: nothing could verify');
    var byId = new Map();
    var inOrder = [];
    for (var i = 0; i < keys.length; i++) {
      var at = 'keys[' + i + ']';
      var key = keys[i];
      if (!(key instanceof Map)) throw new KeysDocumentError('keys document: ' + at + ' must be an object, found ' + typeName(key));
      var keyId = nonEmpty(key, 'key_id', at + '.key_id');
      var alg = nonEmpty(key, 'alg', at + '.alg');
      if (alg !== 'Ed25519') throw new KeysDocumentError('keys document: ' + at + '.alg must be "Ed25519", found ' + show(alg));
      var raw;
      try {
        raw = base64UrlDecode(nonEmpty(key, 'public_key', at + '.public_key'));
      } catch (e) {
        if (e instanceof KeysDocumentError) throw e;
        throw new KeysDocumentError('keys document: ' + at + '.public_key must be unpadded base64url: ' + e.message);
      }
      if (raw.length !== 32) {
        throw new KeysDocumentError('keys document: ' + at + '.public_key must decode to a 32-byte Ed25519 public key, got ' + raw.length + ' bytes');
      }
      var from = instant(key, 'active_from', at + '.active_from', false);
      var until = instant(key, 'active_until', at + '.active_until', true);
      if (until !== null && until <= from) {
        throw new KeysDocumentError('keys document: ' + at + '.active_until must be after active_from');
      }
      if (byId.has(keyId)) throw new KeysDocumentError('keys document: ' + at + '.key_id ' + show(keyId) + ' duplicates an earlier key_id');
      var cryptoKey;
      try {
        cryptoKey = await subtle().importKey('raw', raw, { name: 'Ed25519' }, false, ['verify']);
      } catch (e) {
        throw new KeysDocumentError('keys document: ' + at + '.public_key is not a usable Ed25519 public key (' + e + ')');
      }
      var entry = {
        keyId: keyId,
        publicKey: key.get('public_key'),
        cryptoKey: cryptoKey,
        fingerprint: await fingerprint(raw),
        activeFrom: from,
        activeUntil: until,
        activeFromText: key.get('active_from'),
        activeUntilText: key.get('active_until')
      };
      byId.set(keyId, entry);
      inOrder.push(entry);
    }
    return { workspaceId: workspaceId, keys: byId, inOrder: inOrder };
  }

  function nonEmpty(obj, name, path) {
    var v = obj.get(name);
    if (v === undefined) throw new KeysDocumentError('keys document: ' + path + ' is missing');
    if (typeof v !== 'string' || v.length === 0) throw new KeysDocumentError('keys document: ' + path + ' must be a non-empty string, found ' + show(v));
    return v;
  }

  function instant(obj, name, path, nullable) {
    var v = obj.get(name);
    if (v === undefined) throw new KeysDocumentError('keys document: ' + path + ' is missing');
    if (v === null && nullable) return null;
    var t = typeof v === 'string' ? parseInstant(v) : null;
    if (t === null) {
      throw new KeysDocumentError('keys document: ' + path + ' must be an RFC 3339 timestamp with offset' + (nullable ? ' or null' : '') + ', found ' + show(v));
    }
    return t;
  }

  // ------------------------------------------------------------------------------------------
  // The verifier.

  var STEPS = ['PARSE', 'VERSION', 'SCHEMA', 'PAIRING', 'ALGORITHM', 'TIMESTAMP', 'WORKSPACE', 'KEY_NOT_FOUND', 'KEY_NOT_ACTIVE', 'SIGNATURE'];
  var MEMBERS = ['version', 'receipt_id', 'workspace_id', 'issued_at', 'decision', 'reason', 'user_id', 'agent_id', 'scope', 'event', 'resource', 'context', 'authorization_id', 'policy_version', 'policy_eval', 'signature'];
  var MEMBER_SET = new Set(MEMBERS);
  var REQUIRED = ['receipt_id', 'workspace_id', 'issued_at', 'decision', 'reason', 'user_id', 'agent_id', 'resource', 'context', 'authorization_id', 'policy_version', 'signature'];
  var encoder = new TextEncoder();

  function failure(step, message, receiptId, facts) {
    return { valid: false, step: step, message: message, receiptId: receiptId, facts: facts || null };
  }

  function isString(v) {
    return typeof v === 'string';
  }

  function stringProblem(name, v, nullable) {
    if (typeof v === 'string' || (nullable && v === null)) return null;
    return name + ' must be a string' + (nullable ? ' or null' : '') + ', found ' + show(v);
  }

  function safeScalar(v) {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
    return v instanceof JsonNumber && integerForm(v.text) !== null;
  }

  function exactMembers(obj, path, names) {
    var unknown = [];
    obj.forEach(function (_, key) {
      if (names.indexOf(key) < 0) unknown.push(key);
    });
    if (unknown.length) return path + ' has unknown fields: [' + unknown.join(', ') + ']';
    var missing = names.filter(function (name) {
      return !obj.has(name);
    });
    return missing.length ? path + ' missing fields: [' + missing.join(', ') + ']' : null;
  }

  function policyEvalProblem(pe) {
    if (!(pe instanceof Map)) return 'policy_eval must be an object, found ' + typeName(pe);
    var p = exactMembers(pe, 'policy_eval', ['matched_condition', 'field_value']);
    if (p) return p;
    var mc = pe.get('matched_condition');
    if (mc instanceof Map) {
      p = exactMembers(mc, 'policy_eval.matched_condition', ['field', 'op', 'value']);
      if (p) return p;
      if (!isString(mc.get('field'))) return 'policy_eval.matched_condition.field must be a string, found ' + show(mc.get('field'));
      if (!isString(mc.get('op'))) return 'policy_eval.matched_condition.op must be a string, found ' + show(mc.get('op'));
      var value = mc.get('value');
      var ok = safeScalar(value) || (Array.isArray(value) && value.every(safeScalar));
      if (!ok) return 'policy_eval.matched_condition.value must be a string, safe integer, boolean, null or an array of those; found ' + show(value);
    } else if (mc !== null) {
      return 'policy_eval.matched_condition must be null or an object, found ' + show(mc);
    }
    if (!safeScalar(pe.get('field_value'))) {
      return 'policy_eval.field_value must be a string, safe integer, boolean or null; found ' + show(pe.get('field_value'));
    }
    return null;
  }

  function schemaProblem(r) {
    var unknown = null;
    for (var key of r.keys()) {
      if (!MEMBER_SET.has(key)) (unknown = unknown || []).push(key);
    }
    if (unknown) return 'unknown top-level fields: [' + unknown.join(', ') + ']';
    var missing = null;
    for (var m = 0; m < REQUIRED.length; m++) {
      if (!r.has(REQUIRED[m])) (missing = missing || []).push(REQUIRED[m]);
    }
    if (missing) return 'missing top-level fields: [' + missing.join(', ') + ']';
    var scope = r.get('scope');
    var event = r.get('event');
    if (scope !== undefined && event !== undefined) return "receipt has both 'scope' and 'event'; exactly one is allowed";
    if (scope === undefined && event === undefined) return "receipt has neither 'scope' nor 'event'; exactly one is required";
    var p = stringProblem('receipt_id', r.get('receipt_id')) ||
      stringProblem('workspace_id', r.get('workspace_id')) ||
      stringProblem('issued_at', r.get('issued_at')) ||
      stringProblem('decision', r.get('decision')) ||
      stringProblem('reason', r.get('reason')) ||
      stringProblem('user_id', r.get('user_id'), true) ||
      stringProblem('agent_id', r.get('agent_id'), true) ||
      (scope !== undefined ? stringProblem('scope', scope) : null) ||
      (event !== undefined ? stringProblem('event', event) : null) ||
      stringProblem('resource', r.get('resource'), true) ||
      stringProblem('authorization_id', r.get('authorization_id'), true) ||
      stringProblem('policy_version', r.get('policy_version'));
    if (p) return p;
    if (!(r.get('context') instanceof Map)) return 'context must be an object, found ' + typeName(r.get('context'));
    var sig = r.get('signature');
    if (!(sig instanceof Map)) return 'signature must be an object {alg, key_id, value}, found ' + typeName(sig);
    if (sig.size !== 3 || !sig.has('alg') || !sig.has('key_id') || !sig.has('value')) {
      var extra = [];
      sig.forEach(function (_, key) {
        if (key !== 'alg' && key !== 'key_id' && key !== 'value') extra.push(key);
      });
      if (extra.length) return 'signature has unknown fields: [' + extra.join(', ') + '] (exactly alg, key_id, value)';
      var sigMissing = ['alg', 'key_id', 'value'].filter(function (name) {
        return !sig.has(name);
      });
      if (sigMissing.length) return 'signature missing fields: [' + sigMissing.join(', ') + ']';
    }
    p = stringProblem('signature.alg', sig.get('alg')) ||
      stringProblem('signature.key_id', sig.get('key_id')) ||
      stringProblem('signature.value', sig.get('value'));
    if (p) return p;
    var pe = r.get('policy_eval');
    if (event !== undefined) {
      var lifecycle = event === 'authorization.create' || event === 'authorization.revoke';
      if (!lifecycle && event !== 'escalation.resolve') {
        return 'event must be one of authorization.create, authorization.revoke, escalation.resolve; found ' + show(event);
      }
      if (pe !== undefined) return 'policy_eval must be absent on event receipts';
      if (r.get('authorization_id') === null) {
        return event + ' receipt must have non-null authorization_id (event receipts belong to an authorization)';
      }
      if (lifecycle && r.get('resource') !== null) return event + ' receipt must have null resource; found ' + show(r.get('resource'));
    } else if (pe !== undefined) {
      return policyEvalProblem(pe);
    }
    return null;
  }

  function pairingProblem(event, decision) {
    if (event === undefined) {
      switch (decision) {
        case 'allow':
        case 'deny':
        case 'confirm':
        case 'escalate':
          return null;
        case 'authorization_granted':
        case 'authorization_revoked':
        case 'escalation_approved':
        case 'escalation_rejected':
          return 'decision "' + decision + '" requires an event receipt; a scope receipt carries allow, deny, confirm or escalate';
        default:
          return 'action receipt must have decision in [allow, deny, confirm, escalate]; found ' + show(decision);
      }
    }
    if (event === 'authorization.create') {
      return decision === 'authorization_granted' ? null : 'authorization.create receipt must have decision "authorization_granted"; found ' + show(decision);
    }
    if (event === 'authorization.revoke') {
      return decision === 'authorization_revoked' ? null : 'authorization.revoke receipt must have decision "authorization_revoked"; found ' + show(decision);
    }
    return decision === 'escalation_approved' || decision === 'escalation_rejected' ? null
      : 'escalation.resolve receipt must have decision "escalation_approved" or "escalation_rejected"; found ' + show(decision);
  }

  /**
   * A verifier for one workspace's keys document.
   *
   * @param keysDocument JSON text, a parsed tree, or plain JavaScript of GET /v1/workspaces/{id}/keys
   * @param options {pins: [fingerprint...] (optional), now: () => epoch milliseconds (optional),
   *     nowNanos: BigInt nanoseconds (optional, fixed clock)}
   */
  async function createVerifier(keysDocument, options) {
    options = options || {};
    var doc = await parseKeysDocument(keysDocument);
    var pins = null;
    if (options.pins && options.pins.length) {
      pins = new Set();
      options.pins.forEach(function (fp) {
        var problem = validFingerprint(fp);
        if (problem) throw new KeysDocumentError('key fingerprint ' + JSON.stringify(fp) + ': ' + problem);
        pins.add(fp);
      });
      var any = doc.inOrder.some(function (key) {
        return pins.has(key.fingerprint);
      });
      if (!any) {
        throw new KeysDocumentError('the keys document of workspace ' + doc.workspaceId + ' holds none of the pinned keys; its keys are ' +
          doc.inOrder.map(function (key) {
            return JSON.stringify(key.keyId) + ' ' + key.fingerprint;
          }).join(', '));
      }
    }
    function now() {
      if (options.nowNanos !== undefined) return options.nowNanos;
      return BigInt(options.now ? options.now() : Date.now()) * 1000000n;
    }

    /** Verifies a parsed receipt (a tree from parseJson). */
    async function verifyTree(r) {
      if (!(r instanceof Map)) return failure('PARSE', 'receipt must be a JSON object, found ' + typeName(r), null);
      var receiptId = typeof r.get('receipt_id') === 'string' ? r.get('receipt_id') : null;
      var step = 'VERSION';
      try {
        var version = r.get('version');
        if (version === undefined) return failure(step, 'unsupported version: the version member is missing; expected "1.0"', receiptId);
        if (version !== '1.0') return failure(step, 'unsupported version ' + show(version) + '; expected "1.0"', receiptId);
        step = 'SCHEMA';
        var problem = schemaProblem(r);
        if (problem) return failure(step, problem, receiptId);
        var issuedText = r.get('issued_at');
        var issued = parseInstant(issuedText);
        if (issued === null) {
          return failure(step, 'issued_at must be an RFC 3339 timestamp with timezone offset, like 2026-04-21T14:32:17.482Z; found ' + show(issuedText), receiptId);
        }
        var sig = r.get('signature');
        var sigBytes;
        try {
          sigBytes = base64UrlDecode(sig.get('value'));
        } catch (e) {
          return failure(step, 'signature.value must be unpadded base64url (RFC 4648 section 5) of exactly 64 bytes: ' + e.message, receiptId);
        }
        if (sigBytes.length !== 64) {
          return failure(step, 'signature.value must be unpadded base64url of exactly 64 bytes; it decodes to ' + sigBytes.length + ' bytes', receiptId);
        }
        var payload;
        try {
          payload = signingPayload(r);
        } catch (e) {
          if (e instanceof CanonicalError) return failure(step, 'receipt has no canonical form: ' + e.path + ': ' + e.message, receiptId);
          throw e;
        }
        var event = r.get('event');
        var decision = r.get('decision');
        var facts = {
          receiptId: receiptId,
          workspaceId: r.get('workspace_id'),
          authorizationId: r.get('authorization_id'),
          event: event === undefined ? null : event,
          decision: decision,
          issuedAt: issued
        };
        step = 'PAIRING';
        problem = pairingProblem(event, decision);
        if (problem) return failure(step, problem, receiptId, facts);
        step = 'ALGORITHM';
        if (sig.get('alg') !== 'Ed25519') return failure(step, 'signature.alg must be "Ed25519"; found ' + show(sig.get('alg')), receiptId, facts);
        step = 'TIMESTAMP';
        var clock = now();
        if (issued > clock + MAX_FUTURE_SKEW_NANOS) {
          return failure(step, 'issued_at ' + issuedText + ' is in the future: more than 5 minutes ahead of the verifier clock (' + formatInstant(clock) + ')', receiptId, facts);
        }
        step = 'WORKSPACE';
        if (r.get('workspace_id') !== doc.workspaceId) {
          return failure(step, 'workspace_id ' + show(r.get('workspace_id')) + ' does not match the keys document\'s workspace_id "' + doc.workspaceId + '"', receiptId, facts);
        }
        step = 'KEY_NOT_FOUND';
        var keyId = sig.get('key_id');
        var key = doc.keys.get(keyId);
        if (!key) return failure(step, 'no public key found for key_id ' + show(keyId) + ' in the keys document of workspace ' + doc.workspaceId, receiptId, facts);
        if (pins && !pins.has(key.fingerprint)) {
          return failure(step, 'key "' + keyId + '" is in the keys document of workspace ' + doc.workspaceId + ' but is not pinned: its fingerprint ' + key.fingerprint + ' is not one of the trusted key fingerprints', receiptId, facts);
        }
        step = 'KEY_NOT_ACTIVE';
        if (issued < key.activeFrom || (key.activeUntil !== null && issued >= key.activeUntil)) {
          return failure(step, 'key "' + keyId + '" was not active at issued_at ' + issuedText + ': its window is [' + key.activeFromText + ', ' + (key.activeUntilText || 'no end') + ')', receiptId, facts);
        }
        step = 'SIGNATURE';
        var ok = await subtle().verify({ name: 'Ed25519' }, key.cryptoKey, sigBytes, encoder.encode(payload));
        if (!ok) {
          return failure(step, 'signature verification failed: the Ed25519 signature does not match the canonical payload under key "' + keyId + '"', receiptId, facts);
        }
        return { valid: true, step: null, message: 'verified with key ' + keyId, receiptId: receiptId, facts: facts };
      } catch (e) {
        return failure(step, 'unexpected error while checking: ' + e, receiptId);
      }
    }

    /** Verifies a receipt given as JSON text. */
    async function verify(text) {
      var tree;
      try {
        tree = parseJson(text);
      } catch (e) {
        if (e instanceof ParseError) return failure('PARSE', 'receipt is not valid JSON: ' + e.message, null);
        return failure('PARSE', 'receipt could not be parsed: ' + e, null);
      }
      return verifyTree(tree);
    }

    /**
     * Verifies entries ({tree} or {text}, as splitReceipts gives them) with up to inFlight (default
     * 64) at once, results in entry order. WebCrypto checks signatures off the page's thread, so a
     * page that waits for each result before starting the next leaves it idle most of the time.
     */
    async function verifyAll(entries, inFlight) {
      var out = new Array(entries.length);
      var next = 0;
      async function lane() {
        while (next < entries.length) {
          var i = next++;
          var e = entries[i];
          out[i] = await (e.tree !== undefined ? verifyTree(e.tree) : verify(e.text));
        }
      }
      var lanes = [];
      var n = Math.min(inFlight > 0 ? inFlight : 64, entries.length);
      for (var l = 0; l < n; l++) lanes.push(lane());
      await Promise.all(lanes);
      return out;
    }

    return {
      workspaceId: doc.workspaceId,
      keys: doc.inOrder.map(function (key) {
        return { keyId: key.keyId, fingerprint: key.fingerprint, activeFrom: key.activeFromText, activeUntil: key.activeUntilText };
      }),
      pins: pins ? Array.from(pins) : [],
      verify: verify,
      verifyTree: verifyTree,
      verifyAll: verifyAll
    };
  }

  // ------------------------------------------------------------------------------------------
  // Chains: one authorization's receipts in issuance order (the Java ChainCheck's rules).

  /**
   * Checks a chain from the results of verify()/verifyTree(), in issuance order. Returns
   * {authorizationId, problems: [{kind, index, receiptId, message}]}.
   */
  function checkChain(results) {
    var invalid = [];
    var duplicates = [];
    var firstValid = -1;
    var firstValidId = null;
    var firstValidAuthorization = null;
    var create = null;
    var firstRevokeId = null;
    var revokedAt = null;
    var valid = [];
    results.forEach(function (r, i) {
      if (!r.valid) {
        invalid.push(r.step === 'WORKSPACE'
          ? { kind: 'MIXED_WORKSPACE', index: i, receiptId: r.receiptId, message: r.message }
          : { kind: 'INVALID_RECEIPT', index: i, receiptId: r.receiptId, message: 'failed verification at step ' + r.step + ': ' + r.message });
        return;
      }
      var f = r.facts;
      if (firstValid < 0) {
        firstValid = i;
        firstValidId = f.receiptId;
        firstValidAuthorization = f.authorizationId;
      }
      if (f.event === 'authorization.create') {
        if (create === null) {
          create = { index: i, id: f.receiptId, authorizationId: f.authorizationId };
        } else {
          duplicates.push({ kind: 'DUPLICATE_CREATE', index: i, receiptId: f.receiptId, message: 'second authorization.create receipt; the first is ' + create.id });
        }
      } else if (f.event === 'authorization.revoke') {
        if (firstRevokeId === null) {
          firstRevokeId = f.receiptId;
        } else {
          duplicates.push({ kind: 'DUPLICATE_REVOKE', index: i, receiptId: f.receiptId, message: 'second authorization.revoke receipt; the first is ' + firstRevokeId });
        }
        revokedAt = revokedAt === null || f.issuedAt < revokedAt ? f.issuedAt : revokedAt;
      }
      valid.push({ index: i, facts: f });
    });
    var problems = invalid.concat(duplicates);
    if (create === null) {
      problems.push({ kind: 'MISSING_CREATE', index: -1, receiptId: null, message: results.length === 0 ? 'the chain is empty: it has no authorization.create receipt' : 'the chain has no valid authorization.create receipt' });
    } else if (create.index !== firstValid) {
      problems.push({ kind: 'CREATE_NOT_FIRST', index: create.index, receiptId: create.id, message: 'the authorization.create receipt is not the first receipt of the chain; ' + firstValidId + ' precedes it' });
    }
    var authorizationId = create !== null ? create.authorizationId : firstValidAuthorization;
    var previous = null;
    valid.forEach(function (v) {
      var f = v.facts;
      if (previous !== null && f.issuedAt < previous.issuedAt) {
        problems.push({ kind: 'OUT_OF_ORDER', index: v.index, receiptId: f.receiptId, message: 'issued_at is earlier than that of the preceding receipt ' + previous.receiptId });
      }
      previous = f;
      if (f.authorizationId !== authorizationId) {
        problems.push({ kind: 'MIXED_AUTHORIZATION', index: v.index, receiptId: f.receiptId, message: 'authorization_id ' + JSON.stringify(f.authorizationId) + ' differs from the chain\'s ' + JSON.stringify(authorizationId) });
      }
      if (revokedAt !== null && f.event === null && f.decision !== 'deny' && f.issuedAt > revokedAt) {
        problems.push({ kind: 'USE_AFTER_REVOKE', index: v.index, receiptId: f.receiptId, message: 'scope receipt with decision ' + f.decision + ' issued after the revocation; only deny may follow a revocation' });
      }
    });
    return { authorizationId: authorizationId, problems: problems };
  }

  /**
   * Splits a file of receipts into receipt texts or trees: NDJSON (one receipt per line), a JSON
   * array of receipts, an object with a "receipts" array, or one receipt (also the "receipt" member
   * of a GET /v1/receipts/{id} response). Returns [{tree?, text?, label}] where a line that is not
   * JSON keeps its text (it fails at PARSE).
   */
  function splitReceipts(text) {
    var trimmed = text.replace(/^\uFEFF/, '').trim();
    var whole = null;
    try {
      whole = parseJson(trimmed);
    } catch (e) {
      whole = null;
    }
    if (whole !== null) {
      if (Array.isArray(whole)) return whole.map(function (t, i) { return { tree: t, label: 'item ' + (i + 1) }; });
      if (whole instanceof Map && Array.isArray(whole.get('receipts'))) {
        return whole.get('receipts').map(function (t, i) { return { tree: t, label: 'receipts[' + i + ']' }; });
      }
      if (whole instanceof Map && whole.get('receipt') instanceof Map && !whole.has('signature')) {
        return [{ tree: whole.get('receipt'), label: 'receipt' }];
      }
      return [{ tree: whole, label: 'receipt' }];
    }
    var out = [];
    trimmed.split(/\r?\n/).forEach(function (line, i) {
      if (line.trim() !== '') out.push({ text: line, label: 'line ' + (i + 1) });
    });
    return out;
  }

  var api = {
    STEPS: STEPS,
    JsonNumber: JsonNumber,
    ParseError: ParseError,
    CanonicalError: CanonicalError,
    KeysDocumentError: KeysDocumentError,
    parseJson: parseJson,
    toPlain: toPlain,
    fromPlain: fromPlain,
    canonicalize: canonicalize,
    signingPayload: signingPayload,
    base64UrlDecode: base64UrlDecode,
    base64UrlEncode: base64UrlEncode,
    parseInstant: parseInstant,
    fingerprint: fingerprint,
    validFingerprint: validFingerprint,
    createVerifier: createVerifier,
    checkChain: checkChain,
    splitReceipts: splitReceipts
  };
  root.AgentAuthVerify = api;
  if (typeof module === 'object' && module && module.exports) module.exports = api;
})(typeof globalThis !== 'undefined' ? globalThis : this);
