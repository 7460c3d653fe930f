/**
 * @module eval/bfcl/classes/vehicle-control
 * Port of upstream's `VehicleControlAPI` (vehicle_control.py): engine, doors, brakes, climate,
 * cruise control and trip helpers; temperatures and speeds drawn from `random.Random(141053)`.
 */
import * as py from "../../python/index.js";
import type { PyDict, PyValue } from "../../python/index.js";
import { methodTable, opt, req, type BfclApi, tableGet } from "../api.js";
import type { BfclSession } from "../session.js";

const MAX_FUEL_LEVEL = 50n;
const MIN_FUEL_LEVEL = 0.0;
const MILE_PER_GALLON = 20.0;

/** Distances between zip codes, either direction. */
const DISTANCES: ReadonlyArray<readonly [string, string, number]> = [
  ["83214", "74532", 750.0],
  ["56108", "62947", 320.0],
  ["71354", "83462", 450.0],
  ["47329", "52013", 290.0],
  ["69238", "51479", 630.0],
  ["94016", "83214", 980.0],
  ["94016", "94704", 600.0],
  ["94704", "08540", 2550.0],
  ["94016", "08540", 1950.0],
  ["62947", "47329", 1053.0],
  ["94016", "62947", 780.0],
  ["74532", "94016", 880.0],
];

const ZIP_CODES: Readonly<Record<string, string>> = {
  Rivermist: "83214",
  Stonebrook: "74532",
  Maplecrest: "56108",
  Silverpine: "62947",
  Shadowridge: "71354",
  "Sunset Valley": "83462",
  Oakendale: "47329",
  Willowbend: "52013",
  "Crescent Hollow": "69238",
  Autumnville: "51479",
  "San Francisco": "94016",
};

function defaultDoors(): PyDict {
  return py.pyDict({
    driver: "unlocked",
    passenger: "unlocked",
    rear_left: "unlocked",
    rear_right: "unlocked",
  });
}

/**
 * Public attributes `_load_scenario` reads, in `vars()` order: [attribute, scenario key, default].
 * `doorStatus` stands between the two parts (it also recounts `remainingUnlockedDoors`).
 */
const STATE_BEFORE_DOORS: ReadonlyArray<readonly [string, string, PyValue]> = [
  ["fuelLevel", "fuelLevel", 0.0],
  ["batteryVoltage", "batteryVoltage", 12.6],
  ["engine_state", "engineState", "stopped"],
  ["remainingUnlockedDoors", "remainingUnlockedDoors", 4n],
];
const STATE_AFTER_DOORS: ReadonlyArray<readonly [string, string, PyValue]> = [
  ["acTemperature", "acTemperature", 25.0],
  ["fanSpeed", "fanSpeed", 50n],
  ["acMode", "acMode", "auto"],
  ["humidityLevel", "humidityLevel", 50.0],
  ["headLightStatus", "headLightStatus", "off"],
  ["parkingBrakeStatus", "parkingBrakeStatus", "released"],
  ["brakePedalStatus", "brakePedalStatus", "released"],
  ["distanceToNextVehicle", "distanceToNextVehicle", 50.0],
  ["cruiseStatus", "cruiseStatus", "inactive"],
  ["destination", "destination", "None"],
  ["frontLeftTirePressure", "frontLeftTirePressure", 32.0],
  ["frontRightTirePressure", "frontRightTirePressure", 32.0],
  ["rearLeftTirePressure", "rearLeftTirePressure", 30.0],
  ["rearRightTirePressure", "rearRightTirePressure", 30.0],
];

/** Port of upstream's VehicleControlAPI. */
export class VehicleControlAPI implements BfclApi {
  readonly className = "VehicleControlAPI";
  /** Public attributes by Python name, in `vars()` order. */
  private readonly state = new Map<string, PyValue>();
  private parkingBrakeForce: PyValue = 0.0;
  private slopeAngle: PyValue = 0.0;
  private brakePedalForce: PyValue = 0.0;
  private random = new py.PyRandom(141053);

  constructor(private readonly session: BfclSession) {}

  private get(name: string): PyValue {
    return this.state.get(name)!;
  }

  private set(name: string, value: PyValue): void {
    this.state.set(name, value);
  }

  loadScenario(scenario: PyDict, longContext: boolean): void {
    const seed = py.getOrMake(scenario, "random_seed", () => 141053n);
    this.random = new py.PyRandom(typeof seed === "bigint" ? seed : 141053n);
    const from = (key: string, value: PyValue) => py.getOrMake(scenario, key, () => value);
    this.state.clear();
    for (const [attribute, key, value] of STATE_BEFORE_DOORS) this.set(attribute, from(key, value));
    const doors = py.asDict(py.getOrMake(scenario, "doorStatus", defaultDoors));
    this.set("doorStatus", doors);
    const locked = [...doors.keys()].filter((d) =>
      py.pyEquals(py.getItem(doors, d), "locked"),
    ).length;
    this.set("remainingUnlockedDoors", 4n - BigInt(locked));
    for (const [attribute, key, value] of STATE_AFTER_DOORS) this.set(attribute, from(key, value));
    this.parkingBrakeForce = from("parkingBrakeForce", 0.0);
    this.slopeAngle = from("slopeAngle", 0.0);
    this.brakePedalForce = from("brakePedalForce", 0.0);
    this.set("long_context", longContext);
  }

  publicState(): Array<[string, PyValue]> {
    return [...this.state];
  }

  private get longContext(): boolean {
    return this.get("long_context") === true;
  }

  private doorsWith(status: string): string[] {
    const doors = py.asDict(this.get("doorStatus"));
    return [...doors].filter(([, s]) => py.pyEquals(s, status)).map(([d]) => String(d));
  }

  private setDoors(unlock: boolean, door: PyValue): PyDict {
    const status = unlock ? "unlocked" : "locked";
    const doors = py.asDict(this.get("doorStatus"));
    for (const d of py.iterate(door)) {
      if (py.pyEquals(py.getItem(doors, d), status)) continue;
      doors.set(py.hashKey(d), status);
      this.set(
        "remainingUnlockedDoors",
        py.pyAdd(this.get("remainingUnlockedDoors"), unlock ? 1n : -1n),
      );
    }
    return py.pyDict({
      lockStatus: status,
      remainingUnlockedDoors: this.get("remainingUnlockedDoors"),
    });
  }

  readonly methods = methodTable([
    [
      "startEngine",
      [req("ignitionMode")],
      ({ ignitionMode }) => {
        if (py.pyEquals(ignitionMode!, "STOP")) this.set("engine_state", "stopped");
        if (py.pyGt(this.get("remainingUnlockedDoors"), 0n)) {
          return py.pyDict({
            error:
              "All doors must be locked before starting the engine. Here are the unlocked doors: " +
              this.doorsWith("unlocked").join(", "),
          });
        }
        if (!py.pyEquals(this.get("brakePedalStatus"), "pressed"))
          return py.pyDict({ error: "Brake pedal needs to be pressed when starting the engine." });
        if (!py.pyEquals(this.brakePedalForce, 1000.0))
          return py.pyDict({ error: "Must press the brake fully before starting the engine." });
        if (py.pyLt(this.get("fuelLevel"), MIN_FUEL_LEVEL))
          return py.pyDict({ error: "Fuel tank is empty." });
        if (!py.pyEquals(ignitionMode!, "START"))
          return py.pyDict({ error: "Invalid ignition mode." });
        this.set("engine_state", "running");
        return py.pyDict({
          engineState: "running",
          fuelLevel: this.get("fuelLevel"),
          batteryVoltage: this.get("batteryVoltage"),
        });
      },
    ],
    [
      "fillFuelTank",
      [req("fuelAmount")],
      ({ fuelAmount }) => {
        if (py.pyLt(fuelAmount!, 0n))
          return py.pyDict({ error: "Fuel amount cannot be negative." });
        const after = py.pyAdd(this.get("fuelLevel"), fuelAmount!);
        if (py.pyGt(after, MAX_FUEL_LEVEL))
          return py.pyDict({ error: "Cannot fill gas above the tank capacity." });
        if (py.pyLt(after, MIN_FUEL_LEVEL))
          return py.pyDict({ error: "Fuel tank is empty. Min fuel level is 0 gallons." });
        this.set("fuelLevel", after);
        return py.pyDict({ fuelLevel: after });
      },
    ],
    [
      "lockDoors",
      [req("unlock"), req("door")],
      ({ unlock, door }) => this.setDoors(py.truthy(unlock!), door!),
    ],
    [
      "adjustClimateControl",
      [req("temperature"), opt("unit", "celsius"), opt("fanSpeed", 50n), opt("mode", "auto")],
      ({ temperature, unit, fanSpeed, mode }) => {
        if (!(py.pyLe(0n, fanSpeed!) && py.pyLe(fanSpeed!, 100n)))
          return py.pyDict({ error: "Fan speed must be between 0 and 100." });
        this.set("acTemperature", temperature!);
        if (py.pyEquals(unit!, "fahrenheit"))
          this.set("acTemperature", py.pyTrueDiv(py.pyMul(py.pySub(temperature!, 32n), 5n), 9n));
        this.set("fanSpeed", fanSpeed!);
        this.set("acMode", mode!);
        return py.pyDict({
          currentACTemperature: temperature!,
          climateMode: mode!,
          humidityLevel: this.get("humidityLevel"),
        });
      },
    ],
    [
      "get_outside_temperature_from_google",
      [],
      () => {
        const temperature = this.random.uniform(-10.0, 40.0);
        if (!this.longContext) return py.pyDict({ outsideTemperature: temperature });
        const weather = py.asDict(this.session.longContextValue("LONG_WEATHER_EXTENSION"));
        weather.set("outsideTemperature", temperature);
        return weather;
      },
    ],
    ["get_outside_temperature_from_weather_com", [], () => py.pyDict({ error: 404n })],
    [
      "setHeadlights",
      [req("mode")],
      ({ mode }) => {
        if (!py.contains(["on", "off", "auto"], mode!))
          return py.pyDict({ error: "Invalid headlight mode." });
        const status = py.pyEquals(mode!, "on") ? "on" : "off";
        this.set("headLightStatus", status);
        return py.pyDict({ headlightStatus: status });
      },
    ],
    [
      "displayCarStatus",
      [req("option")],
      ({ option }) => {
        const status: PyDict = new Map();
        if (this.longContext)
          status.set("metadata", this.session.longContextValue("CAR_STATUS_METADATA_EXTENSION"));
        const add = (entries: Record<string, PyValue>) => {
          for (const [k, v] of Object.entries(entries)) status.set(k, v);
        };
        const o = typeof option === "string" ? option : null;
        if (o === "fuel") add({ fuelLevel: this.get("fuelLevel") });
        else if (o === "battery") add({ batteryVoltage: this.get("batteryVoltage") });
        else if (o === "doors") add({ doorStatus: this.get("doorStatus") });
        else if (o === "climate") {
          add({
            currentACTemperature: this.get("acTemperature"),
            fanSpeed: this.get("fanSpeed"),
            climateMode: this.get("acMode"),
            humidityLevel: this.get("humidityLevel"),
          });
        } else if (o === "headlights") add({ headlightStatus: this.get("headLightStatus") });
        else if (o === "parkingBrake") {
          add({
            parkingBrakeStatus: this.get("parkingBrakeStatus"),
            parkingBrakeForce: this.parkingBrakeForce,
            slopeAngle: this.slopeAngle,
          });
        } else if (o === "brakePedal")
          add({
            brakePedalStatus: this.get("brakePedalStatus"),
            brakePedalForce: this.brakePedalForce,
          });
        else if (o === "engine") add({ engineState: this.get("engine_state") });
        else add({ error: "Invalid option" });
        return status;
      },
    ],
    [
      "activateParkingBrake",
      [req("mode")],
      ({ mode }) => {
        if (!py.contains(["engage", "release"], mode!)) return py.pyDict({ error: "Invalid mode" });
        const engage = py.pyEquals(mode!, "engage");
        const status = engage ? "engaged" : "released";
        const force = engage ? 500.0 : 0.0;
        this.set("parkingBrakeStatus", status);
        this.parkingBrakeForce = force;
        this.slopeAngle = 10.0;
        const result: PyDict = new Map();
        if (this.longContext)
          result.set(
            "parkingBrakeInstruction",
            this.session.longContextValue("PARKING_BRAKE_INSTRUCTION"),
          );
        result.set("parkingBrakeStatus", status);
        result.set("_parkingBrakeForce", force);
        result.set("_slopeAngle", 10.0);
        return result;
      },
    ],
    [
      "pressBrakePedal",
      [req("pedalPosition")],
      ({ pedalPosition }) => {
        if (!(py.pyLe(0n, pedalPosition!) && py.pyLe(pedalPosition!, 1n)))
          return py.pyDict({ error: "Pedal position must be between 0 and 1." });
        if (py.pyEquals(pedalPosition!, 0n)) {
          this.set("brakePedalStatus", "released");
          this.brakePedalForce = 0.0;
          return py.pyDict({ brakePedalStatus: "released", brakePedalForce: 0.0 });
        }
        const force = py.pyMul(pedalPosition!, 1000n);
        this.set("brakePedalStatus", "pressed");
        this.brakePedalForce = force;
        return py.pyDict({ brakePedalStatus: "pressed", brakePedalForce: py.pyFloat(force) });
      },
    ],
    [
      "releaseBrakePedal",
      [],
      () => {
        this.set("brakePedalStatus", "released");
        this.brakePedalForce = 0.0;
        return py.pyDict({ brakePedalStatus: "released", brakePedalForce: 0.0 });
      },
    ],
    [
      "setCruiseControl",
      [req("speed"), req("activate"), req("distanceToNextVehicle")],
      ({ speed, activate, distanceToNextVehicle }) => {
        const distance = py.pyFloat(distanceToNextVehicle!);
        const kmh = py.pyFloat(speed!);
        if (py.pyEquals(this.get("engine_state"), "stopped"))
          return py.pyDict({ error: "Start the engine before activating the cruise control." });
        this.set("distanceToNextVehicle", distance);
        if (py.truthy(activate!)) {
          if (kmh < 0 || kmh > 120 || py.pyMod(kmh, 5n) !== 0)
            return py.pyDict({ error: "Invalid speed" });
          this.set("cruiseStatus", "active");
          return py.pyDict({
            cruiseStatus: "active",
            currentSpeed: kmh,
            distanceToNextVehicle: distance,
          });
        }
        this.set("cruiseStatus", "inactive");
        return py.pyDict({
          cruiseStatus: "inactive",
          currentSpeed: kmh,
          distanceToNextVehicle: distance,
        });
      },
    ],
    ["get_current_speed", [], () => py.pyDict({ currentSpeed: this.random.uniform(0.0, 120.0) })],
    ["display_log", [req("messages")], ({ messages }) => py.pyDict({ log: messages! })],
    [
      "estimate_drive_feasibility_by_mileage",
      [req("distance")],
      ({ distance }) => {
        return py.pyDict({
          canDrive: !py.pyLt(py.pyMul(this.get("fuelLevel"), MILE_PER_GALLON), distance!),
        });
      },
    ],
    [
      "liter_to_gallon",
      [req("liter")],
      ({ liter }) => py.pyDict({ gallon: py.pyMul(liter!, 0.264172) }),
    ],
    [
      "gallon_to_liter",
      [req("gallon")],
      ({ gallon }) => py.pyDict({ liter: py.pyMul(gallon!, 3.78541) }),
    ],
    [
      "estimate_distance",
      [req("cityA"), req("cityB")],
      ({ cityA, cityB }) => {
        const hit = DISTANCES.find(
          ([a, b]) =>
            (py.pyEquals(cityA!, a) && py.pyEquals(cityB!, b)) ||
            (py.pyEquals(cityA!, b) && py.pyEquals(cityB!, a)),
        );
        const result = hit
          ? py.pyDict({ distance: hit[2] })
          : py.pyDict({ error: "distance not found in database." });
        if (this.longContext)
          result.set("intermediaryCities", this.session.longContextValue("INTERMEDIARY_CITIES"));
        return result;
      },
    ],
    [
      "get_zipcode_based_on_city",
      [req("city")],
      ({ city }) => py.pyDict({ zipcode: tableGet(ZIP_CODES, city, "00000") }),
    ],
    [
      "set_navigation",
      [req("destination")],
      ({ destination }) => {
        this.set("destination", destination!);
        return py.pyDict({ status: py.pyAdd("Navigating to ", destination!) });
      },
    ],
    [
      "check_tire_pressure",
      [],
      () => {
        const names = [
          "frontLeftTirePressure",
          "frontRightTirePressure",
          "rearLeftTirePressure",
          "rearRightTirePressure",
        ];
        const mean = py.pyTrueDiv(
          names.map((n) => this.get(n)).reduce((a, b) => py.pyAdd(a, b)),
          4n,
        );
        const status: PyDict = new Map(names.map((n) => [n, this.get(n)]));
        status.set("healthy_tire_pressure", 30 <= mean && mean <= 35);
        status.set(
          "car_info",
          this.longContext
            ? this.session.longContextValue("CAR_STATUS_METADATA_EXTENSION")
            : new Map(),
        );
        return status;
      },
    ],
    [
      "find_nearest_tire_shop",
      [],
      () => py.pyDict({ shopLocation: "456 Oakwood Avenue, Rivermist, 83214" }),
    ],
  ]);
}
