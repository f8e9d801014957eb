import { DomainErrorKind, DomainException } from '@warden/common';

/** The hooks of an agent cannot be built: the run is refused (HTTP 422), never started without its gates. */
export class HookBuildError extends DomainException {
  constructor(readonly problems: string[]) {
    super(
      DomainErrorKind.RunRefused,
      `The agent's hooks cannot be built, so the run is refused: ${problems.join('; ')}`,
      { problems },
    );
  }
}
