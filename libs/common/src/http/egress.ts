import { Injectable } from '@nestjs/common';
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { BlockList, isIP, type Socket } from 'node:net';
import type { Dispatcher } from 'undici';
import { AppConfig } from '../config/app-config.js';
import { egressRequester, type EgressRequestInit, type EgressResponse } from './egress-request.js';

/** An outbound call for a tenant went to an address the egress policy refuses. */
export class EgressRefusedError extends Error {
  readonly code = 'EGRESS_REFUSED';
}

/**
 * Ranges no tenant-configured URL may reach unless EGRESS_ALLOW lists them: loopback, private, link-local, metadata.
 */
const REFUSED_RANGES: Array<[string, number, 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

/** How long a save waits for DNS before saving an unresolved name as it is (the dial is checked anyway). */
const SAVE_LOOKUP_TIMEOUT_MS = 3000;

/** The refusal somewhere in an error's cause chain (checked by code: errors may come from another realm). */
export function egressRefusalIn(err: unknown): EgressRefusedError | null {
  for (
    let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (e instanceof EgressRefusedError) return e;
    // Across realms the error may arrive re-wrapped as a plain Error carrying only its text.
    const text = /egress refused: .*/.exec(typeof e.message === 'string' ? e.message : '');
    if (e.code === 'EGRESS_REFUSED' || text) return new EgressRefusedError(text ? text[0] : String(e.message));
  }
  return null;
}

function blockListOf(entries: Array<[string, number, 'ipv4' | 'ipv6']>): BlockList {
  const list = new BlockList();
  for (const [address, prefix, family] of entries) list.addSubnet(address, prefix, family);
  return list;
}

/** `::ffff:10.0.0.1` is 10.0.0.1: the embedded IPv4 address decides. */
function normalize(ip: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return { address: mapped[1], family: 'ipv4' };
  return { address: ip, family: isIP(ip) === 6 ? 'ipv6' : 'ipv4' };
}

/**
 * The egress policy for outbound calls made on behalf of a tenant (connectors, LLM, channels). It is enforced when
 * the socket connects, on the address actually dialled — after DNS resolution and on every redirect — so neither
 * DNS rebinding nor a redirect to an internal address gets through.
 */
@Injectable()
export class EgressPolicy {
  private readonly refused = blockListOf(REFUSED_RANGES);
  private readonly allowed = new BlockList();
  private readonly allowedHosts = new Set<string>();
  /** Loaded on the first outbound call: undici is not needed to boot. */
  private dispatcher?: Promise<Dispatcher>;
  private requester?: Promise<(url: string, init?: EgressRequestInit) => Promise<EgressResponse>>;
  /** For axios/http clients (chat SDKs). */
  readonly httpAgent: http.Agent;
  readonly httpsAgent: https.Agent;

  constructor(config: AppConfig) {
    for (const entry of config.egressAllow) {
      const [address, prefix] = entry.split('/');
      const family = isIP(address);
      if (family)
        this.allowed.addSubnet(
          normalize(address).address,
          prefix ? Number(prefix) : family === 4 ? 32 : 128,
          family === 4 ? 'ipv4' : 'ipv6',
        );
      else this.allowedHosts.add(entry.toLowerCase());
    }
    this.httpAgent = this.guardedAgent(http.Agent);
    this.httpsAgent = this.guardedAgent(https.Agent) as https.Agent;
  }

  /** The global fetch, dialling through the policy (for call sites and SDKs that take a `fetch`). */
  readonly fetch: typeof fetch = async (input, init) => {
    try {
      this.dispatcher ??= this.createDispatcher();
      return await fetch(input, { ...init, dispatcher: await this.dispatcher } as unknown as RequestInit);
    } catch (err) {
      // fetch reports every connect failure as "fetch failed"; a refusal is surfaced as itself, so callers say why.
      throw egressRefusalIn(err) ?? err;
    }
  };

  /**
   * fetch's lighter sibling, for calls that read a whole body or iterate it as bytes (connectors, the OpenAI SDK):
   * undici's `request` on the same guarded dispatcher, redirects followed, without fetch's WHATWG streams and
   * Request/Response objects (about 0.5 ms of CPU less per call on the bench machine).
   */
  readonly request = async (url: string | URL, init?: EgressRequestInit): Promise<EgressResponse> => {
    try {
      this.requester ??= (this.dispatcher ??= this.createDispatcher()).then(egressRequester);
      return await (
        await this.requester
      )(String(url), init);
    } catch (err) {
      throw egressRefusalIn(err) ?? err;
    }
  };

  private async createDispatcher(): Promise<Dispatcher> {
    const { Agent, buildConnector } = await import('undici');
    const connect = buildConnector({ lookup: this.lookup });
    return new Agent({
      connect: (opts, callback) => {
        const problem = this.literalProblem(opts.hostname);
        if (problem) {
          callback(problem, null);
          return;
        }
        connect(opts, callback);
      },
    });
  }

  /** Why this host/address may not be dialled, or null. */
  check(host: string, ip: string): EgressRefusedError | null {
    if (this.allowedHosts.has(host.toLowerCase())) return null;
    const { address, family } = normalize(ip);
    if (this.allowed.check(address, family)) return null;
    if (!this.refused.check(address, family)) return null;
    return new EgressRefusedError(
      `egress refused: ${host} resolves to ${ip}, a private, loopback or link-local address ` +
        `(allow it with EGRESS_ALLOW)`,
    );
  }

  /**
   * The save-time check of a tenant-configured URL (the dial is checked again at connect time): a refused address
   * literal, or a name whose every address is refused, is a problem naming `field`. A name that does not resolve now
   * may still be saved — nothing can be dialled through it until it resolves, and then the dial decides.
   */
  async savedUrlProblem(field: string, url: unknown): Promise<string | null> {
    let host: string;
    try {
      host = new URL(String(url)).hostname.replace(/^\[|\]$/g, '');
    } catch {
      return null;
    } // the URL's shape is checked elsewhere
    if (!host || this.allowedHosts.has(host.toLowerCase())) return null;
    const refused = `a private, loopback or link-local address (allow it with EGRESS_ALLOW)`;
    if (isIP(host)) return this.check(host, host) ? `${field} "${String(url)}": ${host} is ${refused}` : null;
    const addresses = await this.resolveForSave(host);
    if (addresses.length === 0 || !addresses.every((a) => this.check(host, a))) return null;
    return `${field} "${String(url)}": ${host} resolves only to ${addresses.join(', ')}, ${refused}`;
  }

  /** All addresses of a name, or none when it does not resolve within a few seconds. */
  private async resolveForSave(host: string): Promise<string[]> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<LookupAddress[]>((resolve) => {
      timer = setTimeout(() => resolve([]), SAVE_LOOKUP_TIMEOUT_MS);
    });
    try {
      const found = await Promise.race([dns.promises.lookup(host, { all: true }).catch(() => []), timeout]);
      return found.map((a) => a.address);
    } finally {
      clearTimeout(timer);
    }
  }

  /** An IP literal never goes through DNS lookup, so it is checked before connecting. */
  private literalProblem(hostname: string): EgressRefusedError | null {
    const host = hostname.replace(/^\[|\]$/g, '');
    return isIP(host) ? this.check(host, host) : null;
  }

  /** dns.lookup, refusing when any resolved address is refused (a rebinding name may answer both kinds). */
  readonly lookup = (
    hostname: string,
    options: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) {
        callback(err, '');
        return;
      }
      const refused = addresses.map((a) => this.check(hostname, a.address)).find(Boolean);
      if (refused) {
        callback(refused, '');
        return;
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  };

  private guardedAgent(Base: typeof http.Agent): http.Agent {
    const literalProblem = (host: string) => this.literalProblem(host);
    const { lookup } = this;
    return new (class extends Base {
      override createConnection(
        options: net.NetConnectOpts & { host?: string },
        callback?: (err: Error | null, socket: Socket) => void,
      ): Socket {
        const problem = literalProblem(options.host ?? '');
        if (problem) throw problem;
        return (super.createConnection as (o: unknown, cb?: unknown) => Socket)({ ...options, lookup }, callback);
      }
    })({ keepAlive: true });
  }
}
