// The TLS key pair of the SMTP listeners: the operator's PEM files when configured, otherwise a
// self-signed ECDSA P-256 certificate generated once per installation into the data directory
// (renewed when it nears expiry). Built with node:crypto and an ASN.1 schema: no openssl CLI.
import { X509Certificate, createPrivateKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import fs from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  BasicConstraints,
  Certificate,
  ExtendedKeyUsage,
  Extension,
  Extensions,
  GeneralName,
  Name,
  RelativeDistinguishedName,
  SubjectAlternativeName,
  SubjectPublicKeyInfo,
  TBSCertificate,
  Validity,
  Version,
  id_ce_basicConstraints,
  id_ce_extKeyUsage,
  id_ce_subjectAltName,
  id_kp_serverAuth,
} from '@peculiar/asn1-x509';

export interface TlsKeyPair {
  key: string; // PEM
  cert: string; // PEM
  generated: boolean;
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const COMMON_NAME = '2.5.4.3';
const VALID_DAYS = 825;
const RENEW_BEFORE_MS = 30 * 86_400_000;

const pem = (label: string, der: ArrayBuffer | Buffer) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der as ArrayBuffer)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n?$/, '\n')}-----END ${label}-----\n`;

/** A self-signed server certificate for `hostnames` (the first is the subject CN). */
export function selfSignedCertificate(hostnames: string[], now = new Date()): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const algorithm = new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 });
  const name = new Name([
    new RelativeDistinguishedName([
      new AttributeTypeAndValue({ type: COMMON_NAME, value: new AttributeValue({ utf8String: hostnames[0] }) }),
    ]),
  ]);
  const altNames = hostnames.map((h) =>
    isIP(h) === 4 ? new GeneralName({ iPAddress: h }) : new GeneralName({ dNSName: h }),
  );
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x40; // positive, and minimal in DER (a leading 0x00 is "illegal padding")
  const tbs = new TBSCertificate({
    version: Version.v3,
    serialNumber: serial.buffer.slice(serial.byteOffset, serial.byteOffset + serial.length),
    signature: algorithm,
    issuer: name,
    subject: name,
    validity: new Validity({
      notBefore: new Date(now.getTime() - 3600_000),
      notAfter: new Date(now.getTime() + VALID_DAYS * 86_400_000),
    }),
    subjectPublicKeyInfo: AsnConvert.parse(publicKey.export({ type: 'spki', format: 'der' }), SubjectPublicKeyInfo),
    extensions: new Extensions([
      new Extension({
        extnID: id_ce_basicConstraints,
        critical: true,
        extnValue: new OctetString(AsnConvert.serialize(new BasicConstraints({ cA: false }))),
      }),
      new Extension({
        extnID: id_ce_extKeyUsage,
        extnValue: new OctetString(AsnConvert.serialize(new ExtendedKeyUsage([id_kp_serverAuth]))),
      }),
      new Extension({
        extnID: id_ce_subjectAltName,
        extnValue: new OctetString(AsnConvert.serialize(new SubjectAlternativeName(altNames))),
      }),
    ]),
  });
  const tbsDer = Buffer.from(AsnConvert.serialize(tbs));
  const signature = sign('sha256', tbsDer, privateKey); // DER-encoded ECDSA signature, as X.509 wants it
  const cert = new Certificate({
    tbsCertificate: tbs,
    signatureAlgorithm: algorithm,
    signatureValue: signature.buffer.slice(signature.byteOffset, signature.byteOffset + signature.length),
  });
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    cert: pem('CERTIFICATE', AsnConvert.serialize(cert)),
  };
}

function usable(key: string, cert: string, now: number): boolean {
  try {
    const x = new X509Certificate(cert);
    return x.checkPrivateKey(createPrivateKey(key)) && Date.parse(x.validTo) - now > RENEW_BEFORE_MS;
  } catch {
    return false;
  }
}

/** A configured file's text; a file that cannot be read is named with its setting. */
function readSetting(setting: string, file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${setting} (${file}) cannot be read: ${(err as Error).message}`);
  }
}

/**
 * The configured key pair, or the installation's generated one (created on first use and kept in
 * `dataDir` as smtp-tls.key / smtp-tls.crt, key file mode 0600).
 */
export function loadTlsKeyPair(opts: {
  certFile?: string;
  keyFile?: string;
  dataDir: string;
  hostname: string;
}): TlsKeyPair {
  if (opts.certFile && opts.keyFile) {
    const cert = readSetting('MAILROOM_TLS_CERT', opts.certFile);
    const key = readSetting('MAILROOM_TLS_KEY', opts.keyFile);
    try {
      if (!new X509Certificate(cert).checkPrivateKey(createPrivateKey(key)))
        throw new Error('the key is not the certificate’s');
    } catch (err) {
      throw new Error(
        `MAILROOM_TLS_CERT (${opts.certFile}) and MAILROOM_TLS_KEY (${opts.keyFile}) are not a PEM certificate and its private key: ${(err as Error).message}`,
      );
    }
    return { cert, key, generated: false };
  }
  const keyPath = path.join(opts.dataDir, 'smtp-tls.key');
  const certPath = path.join(opts.dataDir, 'smtp-tls.crt');
  if (fs.existsSync(keyPath) && fs.existsSync(certPath)) {
    const key = fs.readFileSync(keyPath, 'utf8');
    const cert = fs.readFileSync(certPath, 'utf8');
    if (usable(key, cert, Date.now())) return { key, cert, generated: false };
  }
  const names = [...new Set([opts.hostname, 'localhost', '127.0.0.1'])];
  const pair = selfSignedCertificate(names);
  fs.mkdirSync(opts.dataDir, { recursive: true });
  fs.writeFileSync(keyPath, pair.key, { mode: 0o600 });
  fs.writeFileSync(certPath, pair.cert);
  return { ...pair, generated: true };
}
