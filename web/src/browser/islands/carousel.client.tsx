import { type KeyboardEvent, type ReactNode, useEffect, useRef } from "react";
import Swiper from "swiper";
import { A11y, Autoplay } from "swiper/modules";
import { type CarouselProps, CarouselView } from "./carousel.tsx";

const REDUCED_MOTION = "(prefers-reduced-motion: reduce)";

/**
 * The live carousel: Swiper on the server-rendered list (Autoplay and A11y modules only).
 * Autoplay pauses while the pointer is over it or focus is inside, and does not run at all
 * when the visitor asks for reduced motion; arrow keys move it while the list has focus.
 */
export default function CarouselIsland(props: CarouselProps): ReactNode {
  const viewportRef = useRef<HTMLDivElement>(null);
  const swiperRef = useRef<Swiper | null>(null);
  const { autoplay, delay, speed, pauseOnHover, loop, slides } = props;

  useEffect(() => {
    const viewport = viewportRef.current;
    if (!viewport || slides.length < 2) return;
    const motion = window.matchMedia(REDUCED_MOTION);
    const still = motion.matches;
    const swiper = new Swiper(viewport, {
      modules: [Autoplay, A11y],
      wrapperClass: "carousel__track",
      slideClass: "carousel__slide",
      slidesPerView: "auto",
      speed: still ? 0 : speed,
      loop,
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
      // Puts the slides back in order and removes Swiper's classes and styles before React lets go of them.
      swiper.destroy(true, true);
    };
  }, [autoplay, delay, speed, pauseOnHover, loop, slides.length]);

  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    const swiper = swiperRef.current;
    if (!swiper || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "ArrowRight") swiper.slideNext();
    else if (event.key === "ArrowLeft") swiper.slidePrev();
    else if (event.key === "Home") loop ? swiper.slideToLoop(0) : swiper.slideTo(0);
    else if (event.key === "End")
      loop ? swiper.slideToLoop(slides.length - 1) : swiper.slideTo(slides.length - 1);
    else return;
    event.preventDefault();
  };

  return <CarouselView {...props} viewportRef={viewportRef} onKeyDown={onKeyDown} />;
}
