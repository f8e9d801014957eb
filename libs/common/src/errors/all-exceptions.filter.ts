import { ArgumentsHost, Catch, HttpException, HttpStatus, Logger, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DOMAIN_ERROR_STATUS, DomainException } from './domain.exception.js';
import { scimErrorBody } from './scim-error.js';

const STATUS_NAMES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** pino-http gives each request an id; a test module without the request logger has none. */
type IdentifiedRequest = Omit<Request, 'id'> & { id?: string };

/**
 * One place where errors become HTTP: `{ statusCode, error, message }`. Domain errors keep their message;
 * anything unexpected becomes a 500 that names only the request id (details go to the log, never to the client).
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    const req = ctx.getRequest<IdentifiedRequest>();
    const body = this.toBody(exception, req);
    if (res.headersSent) {
      // A streaming response already started; the stream reports its own errors.
      if (!res.writableEnded) res.end();
      return;
    }
    if (req.path.startsWith('/scim/')) {
      // SCIM clients (Okta, Entra ID) read RFC 7644 error bodies; a body that did not parse is invalidSyntax.
      const scimType =
        body.scimType ??
        (body.statusCode === 400 && !(exception instanceof DomainException) ? 'invalidSyntax' : undefined);
      res
        .status(body.statusCode)
        .type('application/scim+json')
        .send(JSON.stringify(scimErrorBody(body.statusCode, String(body.message), scimType)));
      return;
    }
    res.status(body.statusCode).json(body);
  }

  private toBody(exception: unknown, req: IdentifiedRequest): Record<string, unknown> & { statusCode: number } {
    if (exception instanceof DomainException) {
      const statusCode = DOMAIN_ERROR_STATUS[exception.kind];
      return { statusCode, error: STATUS_NAMES[statusCode], message: exception.message, ...(exception.details ?? {}) };
    }
    if (exception instanceof HttpException) {
      const statusCode = exception.getStatus();
      const response = exception.getResponse();
      const message =
        typeof response === 'string' ? response : ((response as { message?: unknown }).message ?? exception.message);
      if (statusCode >= 500) this.logger.error({ err: exception, reqId: req.id }, 'HTTP 5xx');
      return { statusCode, error: STATUS_NAMES[statusCode] ?? 'Error', message };
    }
    this.logger.error({ err: exception, reqId: req.id }, 'Unhandled error');
    return {
      statusCode: HttpStatus.INTERNAL_SERVER_ERROR,
      error: STATUS_NAMES[500],
      message: `Internal server error (request id ${req.id ?? 'unknown'})`,
    };
  }
}
