/** What went wrong, independent of transport. The global filter maps each kind to an HTTP status. */
export enum DomainErrorKind {
  BadInput = 'bad_input',
  Unauthenticated = 'unauthenticated',
  Forbidden = 'forbidden',
  NotFound = 'not_found',
  Conflict = 'conflict',
  RunRefused = 'run_refused',
  /** A dependency (the database) failed under the request: nothing was done, the caller may try again. */
  Unavailable = 'unavailable',
}

export const DOMAIN_ERROR_STATUS: Record<DomainErrorKind, number> = {
  [DomainErrorKind.BadInput]: 400,
  [DomainErrorKind.Unauthenticated]: 401,
  [DomainErrorKind.Forbidden]: 403,
  [DomainErrorKind.NotFound]: 404,
  [DomainErrorKind.Conflict]: 409,
  [DomainErrorKind.RunRefused]: 422,
  [DomainErrorKind.Unavailable]: 503,
};

/** Base class of every business error: a kind, a message a person can act on, optional details. */
export class DomainException extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class NotFoundError extends DomainException {
  constructor(what: string, id?: string) {
    super(DomainErrorKind.NotFound, id ? `${what} ${id} not found` : `${what} not found`);
  }
}

export class BadInputError extends DomainException {
  constructor(
    message: string,
    readonly problems: string[] = [message],
  ) {
    super(DomainErrorKind.BadInput, message, { problems });
  }
}

export class ConflictError extends DomainException {
  constructor(message: string, details?: Record<string, unknown>) {
    super(DomainErrorKind.Conflict, message, details);
  }
}

export class ForbiddenError extends DomainException {
  constructor(message: string) {
    super(DomainErrorKind.Forbidden, message);
  }
}

export class ServiceUnavailableError extends DomainException {
  constructor(message: string) {
    super(DomainErrorKind.Unavailable, message);
  }
}
