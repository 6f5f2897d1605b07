import type { ReactNode } from "react";

/**
 * The live carousel's buttons, under the slides at the content's right edge, where they
 * cover no slide or caption (slices.css): previous and next (mouse users otherwise could
 * only drag, keyboard users only use the arrows once the list has focus) and, for an
 * autoplaying carousel, pause/play (WCAG 2.2.2). Native buttons: reachable by Tab,
 * pressed by Enter and Space, named by their aria-label.
 */
export function CarouselControls({
  playing,
  onPrev,
  onNext,
  onTogglePlay,
}: {
  /** Undefined when the carousel does not autoplay: no pause/play button. */
  playing: boolean | undefined;
  onPrev: () => void;
  onNext: () => void;
  onTogglePlay: () => void;
}): ReactNode {
  return (
    <div className="carousel__controls">
      {playing === undefined ? null : (
        <button
          type="button"
          className="carousel__button"
          aria-label={playing ? "Pause the slides" : "Play the slides"}
          onClick={onTogglePlay}
        >
          {/* Two bars (pause) or a triangle (play), in the button's colour. */}
          <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
            <path d={playing ? "M4 3h3v10H4zM9 3h3v10H9z" : "M5 3l8 5-8 5z"} fill="currentColor" />
          </svg>
        </button>
      )}
      <button type="button" className="carousel__button" aria-label="Previous slide" onClick={onPrev}>
        <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
          <path d="M10.5 2.5 5 8l5.5 5.5" fill="none" stroke="currentColor" strokeWidth="2" />
        </svg>
      </button>
      <button type="button" className="carousel__button" aria-label="Next slide" onClick={onNext}>
        <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
          <path d="M5.5 2.5 11 8l-5.5 5.5" fill="none" stroke="currentColor" strokeWidth="2" />
        </svg>
      </button>
    </div>
  );
}
