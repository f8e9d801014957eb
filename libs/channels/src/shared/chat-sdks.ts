/**
 * The chat platforms' official SDKs, imported on first use: a server (or a test) without a Feishu or Slack channel
 * never loads them — about 0.9 s of module loading per boot otherwise.
 */
type Lark = typeof import('@larksuiteoapi/node-sdk');
type SlackWebApi = typeof import('@slack/web-api');
/** Of Bolt, only its request verification (its module type also carries a default export). */
type SlackBolt = Pick<typeof import('@slack/bolt'), 'isValidSlackRequest'>;

let lark: Lark | undefined;
let slackWebApi: SlackWebApi | undefined;
let slackBolt: SlackBolt | undefined;

export async function loadLark(): Promise<Lark> {
  return (lark ??= await import('@larksuiteoapi/node-sdk'));
}

/** The Feishu SDK, for code that runs only after `loadLark()` resolved (a callback's parse, a client's set-up). */
export function loadedLark(): Lark {
  if (!lark) throw new Error('the Feishu SDK is used before it was loaded (loadLark)');
  return lark;
}

export async function loadSlackWebApi(): Promise<SlackWebApi> {
  return (slackWebApi ??= await import('@slack/web-api'));
}

export async function loadSlackBolt(): Promise<SlackBolt> {
  return (slackBolt ??= await import('@slack/bolt'));
}
