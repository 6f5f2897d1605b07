import { type KeyboardEvent, type ReactNode, useEffect, useRef, useState } from "react";
import Swiper from "swiper";
import { A11y, Autoplay } from "swiper/modules";
import { type CarouselProps, CarouselView } from "./carousel.tsx";
import { CarouselControls } from "./carousel-controls.tsx";

const REDUCED_MOTION = "(prefers-reduced-motion: reduce)";
/** The spec's carousel swipe distance: a drag shorter than this puts the slide back. */
export const SWIPE_DISTANCE_PX = 50;
/** The spec's carousel throttle: a button or key press within this of the last slide change is ignored. */
export const SLIDE_THROTTLE_MS = 500;

/**
 * The live carousel: Swiper on the server-rendered list (Autoplay and A11y modules only).
 * Autoplay pauses while the pointer is over it or focus is inside, and starts paused when the
 * visitor asks for reduced motion; arrow keys move it while the list has focus. Once live it
 * shows previous/next buttons and, when it autoplays, a pause/play button (WCAG 2.2.2): placed
 * under the slides after hydration, in space the section already leaves, so the server's markup
 * (which has no script to run them) stays the same and nothing moves.
 */
export default function CarouselIsland(props: CarouselProps): ReactNode {
  const viewportRef = useRef<HTMLDivElement>(null);
  const swiperRef = useRef<Swiper | null>(null);
  const lastChange = useRef(0);
  const { autoplay, delay, speed, pauseOnHover, loop, slides } = props;
  const [live, setLive] = useState(false);
  const [playing, setPlaying] = useState(false);

  useEffect(() => {
    const viewport = viewportRef.current;
    if (!viewport || slides.length < 2) return;
    const motion = window.matchMedia(REDUCED_MOTION);
    const still = motion.matches;
    // The server's list has a scrollbar of its own where the platform's scrollbars take room
    // (classic ones: ~10 px on Windows and Linux); Swiper's row has none. Its height stays under
    // the slides (slices.css), so the carousel keeps its height and nothing below it moves up.
    const track = viewport.querySelector<HTMLElement>(".carousel__track");
    const scrollbar = track ? track.offsetHeight - track.clientHeight : 0;
    viewport.style.setProperty("--carousel-scrollbar", `${scrollbar}px`);
    const swiper = new Swiper(viewport, {
      modules: [Autoplay, A11y],
      wrapperClass: "carousel__track",
      slideClass: "carousel__slide",
      slidesPerView: "auto",
      speed: still ? 0 : speed,
      loop,
      // Every drag is judged by its length (longSwipesMs 0: not by its speed); the ratio is set
      // from the slide's width below, so 50 px (Swiper's 5 px threshold included) turns a slide.
      longSwipesMs: 0,
      autoplay: {
        enabled: autoplay && !still,
        delay,
        pauseOnMouseEnter: pauseOnHover,
        disableOnInteraction: false,
        stopOnLastSlide: !loop,
      },
      // The slides stay list items of the server's list (Swiper's default role="group" would break
      // the list); each is labelled "2 of 4", and the list is a polite live region while still.
      a11y: {
        slideRole: "",
        itemRoleDescriptionMessage: "slide",
        slideLabelMessage: "{{index}} of {{slidesLength}}",
      },
    });
    swiperRef.current = swiper;
    const setSwipeDistance = () => {
      const size = (swiper.slidesGrid[1] ?? 0) - (swiper.slidesGrid[0] ?? 0);
      if (size > 0)
        swiper.params.longSwipesRatio = (SWIPE_DISTANCE_PX - (swiper.params.threshold ?? 0)) / size;
    };
    setSwipeDistance();
    swiper.on("resize", setSwipeDistance);
    // The slide a visitor sees changed: that starts the 500 ms throttle. realIndexChange, not
    // slideChange, which Swiper also fires when it re-places the loop on the same slide (after a
    // resize); the index check keeps a re-placement from ever swallowing a visitor's click.
    let shown = swiper.realIndex;
    swiper.on("realIndexChange", () => {
      if (swiper.realIndex === shown) return;
      shown = swiper.realIndex;
      lastChange.current = performance.now();
    });
    swiper.on("autoplayStart", () => setPlaying(true));
    swiper.on("autoplayStop", () => setPlaying(false));
    setPlaying(swiper.autoplay.running);
    setLive(true);

    // WCAG 2.2.2: moving content pauses while the visitor is working inside it.
    const pause = () => swiper.autoplay.running && swiper.autoplay.pause();
    const resume = () => {
      if (swiper.autoplay.running && !viewport.matches(":hover")) swiper.autoplay.resume();
    };
    const onFocusOut = (event: FocusEvent) => {
      if (!viewport.contains(event.relatedTarget as Node | null)) resume();
    };
    viewport.addEventListener("focusin", pause);
    viewport.addEventListener("focusout", onFocusOut);
    const onMotionChange = () => {
      swiper.params.speed = motion.matches ? 0 : speed;
      if (motion.matches) swiper.autoplay.stop();
      else if (autoplay) swiper.autoplay.start();
    };
    motion.addEventListener("change", onMotionChange);

    return () => {
      motion.removeEventListener("change", onMotionChange);
      viewport.removeEventListener("focusin", pause);
      viewport.removeEventListener("focusout", onFocusOut);
      swiperRef.current = null;
      setLive(false);
      // Puts the slides back in order and removes Swiper's classes and styles before React lets go of them.
      swiper.destroy(true, true);
    };
  }, [autoplay, delay, speed, pauseOnHover, loop, slides.length]);

  /** A visitor's move (button or key): ignored within 500 ms of the last slide change. */
  const move = (to: "prev" | "next" | "first" | "last") => {
    const swiper = swiperRef.current;
    if (!swiper || performance.now() - lastChange.current < SLIDE_THROTTLE_MS) return;
    if (to === "next") swiper.slideNext();
    else if (to === "prev") swiper.slidePrev();
    else {
      const index = to === "first" ? 0 : slides.length - 1;
      loop ? swiper.slideToLoop(index) : swiper.slideTo(index);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    if (!swiperRef.current || event.altKey || event.ctrlKey || event.metaKey) return;
    const to = { ArrowRight: "next", ArrowLeft: "prev", Home: "first", End: "last" } as const;
    const key = event.key as keyof typeof to;
    if (!to[key]) return;
    event.preventDefault();
    move(to[key]);
  };

  const togglePlay = () => {
    const swiper = swiperRef.current;
    if (!swiper) return;
    if (swiper.autoplay.running) swiper.autoplay.stop();
    else swiper.autoplay.start();
  };

  return (
    <CarouselView
      {...props}
      viewportRef={viewportRef}
      onKeyDown={onKeyDown}
      controls={
        live ? (
          <CarouselControls
            playing={autoplay ? playing : undefined}
            onPrev={() => move("prev")}
            onNext={() => move("next")}
            onTogglePlay={togglePlay}
          />
        ) : null
      }
    />
  );
}
