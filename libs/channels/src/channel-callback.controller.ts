import { Controller, Get, Logger, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '@warden/auth';
import type { Request, Response } from 'express';
import type { CallbackRequest, DecisionOutcome, HttpReply, ParsedCallback } from './channel.js';
import { ChannelRegistry } from './channel-registry.js';
import { ChannelsService } from './channels.service.js';
import { CallbackEvents } from './callback-events.js';

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Chat-platform callbacks. No bearer token: each channel verifies the platform's signature over the raw body, and
 * only then does a click reach the decision service. Anything unverified changes nothing.
 */
@ApiExcludeController()
@Public()
@Controller('channels/:id/callback')
export class ChannelCallbackController {
  private readonly logger = new Logger(ChannelCallbackController.name);

  constructor(
    private readonly channels: ChannelsService,
    private readonly registry: ChannelRegistry,
    private readonly events: CallbackEvents,
  ) {}

  @Get()
  get(@Param('id') id: string, @Req() req: Request & { rawBody?: Buffer }, @Res() res: Response): Promise<void> {
    return this.handle(id, 'GET', req, res);
  }

  @Post()
  post(@Param('id') id: string, @Req() req: Request & { rawBody?: Buffer }, @Res() res: Response): Promise<void> {
    return this.handle(id, 'POST', req, res);
  }

  private async handle(
    id: string,
    method: 'GET' | 'POST',
    req: Request & { rawBody?: Buffer },
    res: Response,
  ): Promise<void> {
    const record = await this.channels.recordForCallback(id);
    const impl = this.registry.get(record.type);
    const request: CallbackRequest = {
      method,
      // JSON and form bodies were parsed with rawBody kept; WeCom's XML was not parsed at all, so read it here.
      rawBody: method === 'GET' ? Buffer.alloc(0) : (req.rawBody ?? (await readBody(req))),
      headers: req.headers,
      query: Object.fromEntries(Object.entries(req.query).map(([k, v]) => [k, typeof v === 'string' ? v : undefined])),
    };
    const parsed = await impl.parseCallback(record, request);
    if (parsed.kind === 'rejected')
      this.logger.warn(`callback for ${record.type} channel ${record.id} rejected: ${parsed.reason}`);
    send(res, parsed.kind === 'decision' ? await this.decide(record.id, parsed) : parsed.reply);
  }

  private async decide(channelId: string, click: Extract<ParsedCallback, { kind: 'decision' }>): Promise<HttpReply> {
    if (click.eventId && !(await this.events.claim(channelId, click.eventId))) {
      return click.respond({ ok: false, message: 'This click was already handled.' });
    }
    const sink = this.channels.decisionSink;
    if (!sink)
      return click.respond({ ok: false, message: 'Approvals are not available right now; nothing was decided.' });
    let outcome: DecisionOutcome;
    try {
      const record = await this.channels.recordForCallback(channelId);
      outcome = await sink.decideFromChannel({
        channel: record,
        confirmationId: click.confirmationId,
        decision: click.decision,
        actor: click.actor,
        all: click.all,
      });
    } catch (err) {
      this.logger.error(`decision from channel ${channelId} failed: ${(err as Error).message}`);
      if (click.eventId) await this.events.release(channelId, click.eventId);
      return click.respond({ ok: false, message: 'The decision could not be recorded; nothing was decided.' });
    }
    return click.respond(outcome);
  }
}

function send(res: Response, reply: HttpReply): void {
  res.status(reply.status);
  if (typeof reply.body === 'string') {
    res.type(reply.contentType ?? 'text/plain').send(reply.body);
  } else {
    res.json(reply.body ?? {});
  }
}

async function readBody(req: Request): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('callback body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
