// The ns-3 side of fanin's DCTCP incast cross-check (ns3_incast.py compiles it with
// cppyy at run time): a DCTCP whose window cut is floored at 1 MSS, and the topology,
// tracing and statistics of the incast.
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace fanin_xc
{
using namespace ns3;

// TcpDctcp with the IMC'24 fork's floor on the window cut: ssthresh (which is
// also cwnd when CWR ends) never drops below 1 MSS.  See the module docstring.
class FlooredDctcp : public TcpDctcp
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("fanin::FlooredDctcp")
                                .SetParent<TcpDctcp>()
                                .SetGroupName("Internet")
                                .AddConstructor<FlooredDctcp>();
        return tid;
    }

    FlooredDctcp()
        : TcpDctcp()
    {
    }

    FlooredDctcp(const FlooredDctcp& sock)
        : TcpDctcp(sock)
    {
    }

    std::string GetName() const override
    {
        return "FlooredDctcp";
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        uint32_t cut = TcpDctcp::GetSsThresh(tcb, bytesInFlight);
        return std::max(cut, tcb->m_segmentSize);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<FlooredDctcp>(this);
    }
};

struct State
{
    uint32_t n = 0;
    uint64_t bytes = 0;
    int64_t t0Ps = 0;
    bool started = false;
    std::vector<uint64_t> written;
    std::vector<uint64_t> rx;
    std::vector<int64_t> fctPs;
    uint32_t done = 0;
    int64_t ictPs = -1;

    std::vector<Ptr<Socket>> senders;
    std::vector<Ptr<Socket>> accepted;
    Ptr<Socket> listener;
    std::map<uint32_t, uint32_t> ipToIdx;
    std::map<Socket*, uint32_t> sockIdx;

    Ptr<QueueDisc> bottleneck;
    QueueDiscContainer qdiscs;
    NetDeviceContainer devices;

    bool integrating = false;
    int64_t qLastPs = 0;
    uint32_t qLen = 0;
    uint32_t qPeak = 0;
    double qIntegral = 0.0; // packet * ps

    uint64_t rtos = 0;
    uint64_t recoveries = 0;
    uint64_t cwrs = 0;
    uint64_t retx = 0;
    std::vector<uint32_t> cwnd; // last traced cwnd of each sender (bytes)
    uint32_t minSsthresh = UINT32_MAX; // smallest ssthresh any sender set after the start
};

static State* g = nullptr;

static bool g_resolutionSet = false;

bool
SetPicoResolution()
{
    if (!g_resolutionSet)
    {
        Time::SetResolution(Time::PS);
        g_resolutionSet = true;
    }
    return Time::GetResolution() == Time::PS;
}

static void
OnQlen(uint32_t, uint32_t newLen)
{
    if (g->integrating)
    {
        int64_t now = Simulator::Now().GetPicoSeconds();
        g->qIntegral += double(g->qLen) * double(now - g->qLastPs);
        g->qLastPs = now;
        g->qPeak = std::max(g->qPeak, newLen);
    }
    g->qLen = newLen;
}

static void
OnCongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t newState)
{
    if (!g->started)
    {
        return;
    }
    if (newState == TcpSocketState::CA_LOSS)
    {
        g->rtos++;
    }
    else if (newState == TcpSocketState::CA_RECOVERY)
    {
        g->recoveries++;
    }
    else if (newState == TcpSocketState::CA_CWR)
    {
        g->cwrs++;
    }
}

static void
OnRetx(const Ptr<const Packet>,
       const TcpHeader&,
       const Address&,
       const Address&,
       const Ptr<const TcpSocketBase>)
{
    g->retx++;
}

static void
OnCwnd(uint32_t idx, uint32_t, uint32_t newCwnd)
{
    g->cwnd[idx] = newCwnd;
}

static void
OnSsthresh(uint32_t, uint32_t newSsthresh)
{
    if (g->started)
    {
        g->minSsthresh = std::min(g->minSsthresh, newSsthresh);
    }
}

static void
TrySend(uint32_t i)
{
    Ptr<Socket> s = g->senders[i];
    while (g->written[i] < g->bytes)
    {
        uint64_t chunk = std::min<uint64_t>(g->bytes - g->written[i], s->GetTxAvailable());
        if (chunk == 0)
        {
            break;
        }
        int sent = s->Send(Create<Packet>(uint32_t(chunk)));
        if (sent <= 0)
        {
            break;
        }
        g->written[i] += uint64_t(sent);
    }
}

static void
OnSendSpace(Ptr<Socket> s, uint32_t)
{
    if (!g->started)
    {
        return;
    }
    auto it = g->sockIdx.find(PeekPointer(s));
    if (it != g->sockIdx.end())
    {
        TrySend(it->second);
    }
}

static void
StartIncast()
{
    g->started = true;
    g->integrating = true;
    g->qLastPs = Simulator::Now().GetPicoSeconds();
    g->qPeak = g->qLen;
    for (uint32_t i = 0; i < g->n; i++)
    {
        TrySend(i);
    }
}

static void
Finish()
{
    int64_t now = Simulator::Now().GetPicoSeconds();
    g->qIntegral += double(g->qLen) * double(now - g->qLastPs);
    g->qLastPs = now;
    g->integrating = false;
    g->ictPs = now - g->t0Ps;
    Simulator::Stop();
}

static void
OnRecv(Ptr<Socket> s)
{
    auto it = g->sockIdx.find(PeekPointer(s));
    uint32_t idx = (it == g->sockIdx.end()) ? UINT32_MAX : it->second;
    Ptr<Packet> p;
    while ((p = s->Recv()) && p->GetSize() > 0)
    {
        if (idx == UINT32_MAX)
        {
            continue;
        }
        g->rx[idx] += p->GetSize();
        if (g->rx[idx] >= g->bytes && g->fctPs[idx] < 0)
        {
            g->fctPs[idx] = Simulator::Now().GetPicoSeconds() - g->t0Ps;
            if (++g->done == g->n)
            {
                Finish();
            }
        }
    }
}

static void
OnAccept(Ptr<Socket> s, const Address& from)
{
    uint32_t ip = InetSocketAddress::ConvertFrom(from).GetIpv4().Get();
    auto it = g->ipToIdx.find(ip);
    if (it != g->ipToIdx.end())
    {
        g->sockIdx[PeekPointer(s)] = it->second;
    }
    s->SetRecvCallback(MakeCallback(&OnRecv));
    g->accepted.push_back(s);
}

static void
ConnectSender(uint32_t i, InetSocketAddress to)
{
    g->senders[i]->Connect(to);
}

void
Reset()
{
    delete g;
    g = nullptr;
}

// Build the star and schedule the incast.  Returns the number of nodes.
uint32_t
Build(uint32_t n,
      uint64_t bytes,
      uint64_t rateBps,
      int64_t delayPs,
      uint32_t ecnK,
      uint32_t bufferPkts,
      uint32_t mtu,
      int64_t minRtoPs,
      uint32_t initCwnd,
      double dctcpG,
      uint32_t seed,
      bool mssFloor,
      int64_t startPs,
      int64_t limitPs)
{
    Reset();
    g = new State();
    g->n = n;
    g->bytes = bytes;
    g->t0Ps = startPs;
    g->written.assign(n, 0);
    g->rx.assign(n, 0);
    g->fctPs.assign(n, -1);
    g->cwnd.assign(n, 0);

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(1);

    // ---- TCP defaults (every socket created from here on).
    TypeId cc = mssFloor ? FlooredDctcp::GetTypeId() : TcpDctcp::GetTypeId();
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(cc));
    Config::SetDefault("ns3::TcpDctcp::DctcpShiftG", DoubleValue(dctcpG));
    Config::SetDefault("ns3::TcpDctcp::DctcpAlphaOnInit", DoubleValue(1.0));
    Config::SetDefault("ns3::TcpDctcp::UseEct0", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mtu - 40));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initCwnd));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold", UintegerValue(UINT32_MAX));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1u << 30));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1u << 30));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(PicoSeconds(minRtoPs)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity",
                       TimeValue(PicoSeconds(std::min<int64_t>(minRtoPs, 1000000000LL))));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", EnumValue(TcpSocketState::On));

    // ---- Topology: hosts 0..n-1 are senders, host n the receiver, one switch.
    NodeContainer hosts;
    hosts.Create(n + 1);
    Ptr<Node> sw = CreateObject<Node>();
    InternetStackHelper stack;
    stack.Install(hosts);
    stack.Install(sw);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rateBps)));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(mtu));
    p2p.SetChannelAttribute("Delay", TimeValue(PicoSeconds(delayPs)));
    // Device queue: 1 packet, the minimum; flow control (on by default) stops the
    // queue disc while it is full, so the backlog builds in the queue disc.
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));

    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::RedQueueDisc",
                         "MaxSize",
                         QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, bufferPkts)),
                         "MinTh",
                         DoubleValue(ecnK),
                         "MaxTh",
                         DoubleValue(ecnK),
                         "QW",
                         DoubleValue(1.0),
                         "LInterm",
                         DoubleValue(1.0),
                         "Gentle",
                         BooleanValue(false),
                         "UseEcn",
                         BooleanValue(true),
                         "UseHardDrop",
                         BooleanValue(false),
                         "LinkBandwidth",
                         DataRateValue(DataRate(rateBps)),
                         "LinkDelay",
                         TimeValue(PicoSeconds(delayPs)));

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");
    Ipv4Address rxAddr;
    for (uint32_t i = 0; i <= n; i++)
    {
        NetDeviceContainer d = p2p.Install(hosts.Get(i), sw); // d.Get(0) host, d.Get(1) switch
        QueueDiscContainer q = tch.Install(d); // before Assign: no default FqCoDel
        Ipv4InterfaceContainer ifs = addr.Assign(d);
        addr.NewNetwork();
        g->devices.Add(d);
        g->qdiscs.Add(q);
        if (i < n)
        {
            g->ipToIdx[ifs.GetAddress(0).Get()] = i;
        }
        else
        {
            rxAddr = ifs.GetAddress(0);
            g->bottleneck = q.Get(1); // switch -> receiver egress
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    g->bottleneck->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQlen));

    // ---- Receiver: one listening socket, every accepted connection is read at once.
    const uint16_t port = 5001;
    g->listener = Socket::CreateSocket(hosts.Get(n), TcpSocketFactory::GetTypeId());
    g->listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
    g->listener->Listen();
    g->listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                   MakeCallback(&OnAccept));

    // ---- Senders: connect at t = 0, write everything at t = startPs.
    for (uint32_t i = 0; i < n; i++)
    {
        Ptr<Socket> s = Socket::CreateSocket(hosts.Get(i), TcpSocketFactory::GetTypeId());
        s->Bind();
        s->SetSendCallback(MakeCallback(&OnSendSpace));
        s->TraceConnectWithoutContext("CongState", MakeCallback(&OnCongState));
        s->TraceConnectWithoutContext("Retransmission", MakeCallback(&OnRetx));
        s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
        s->TraceConnectWithoutContext("SlowStartThreshold", MakeCallback(&OnSsthresh));
        g->senders.push_back(s);
        g->sockIdx[PeekPointer(s)] = i;
        // Connect from inside the run (a SYN sent before the nodes are initialised
        // would hit an uninitialised traffic-control layer).
        Simulator::ScheduleWithContext(hosts.Get(i)->GetId(),
                                       Seconds(0),
                                       &ConnectSender,
                                       i,
                                       InetSocketAddress(rxAddr, port));
    }
    Simulator::Schedule(PicoSeconds(startPs), &StartIncast);
    Simulator::Stop(PicoSeconds(limitPs));
    return hosts.GetN() + 1;
}

// ---- Results, read after Simulator::Run().
int64_t IctPs() { return g->ictPs; }
int64_t NowPs() { return Simulator::Now().GetPicoSeconds(); }
uint64_t Events() { return Simulator::GetEventCount(); }
std::vector<int64_t> FctPs() { return g->fctPs; }
double MeanQueuePkts()
{
    int64_t end = g->integrating ? Simulator::Now().GetPicoSeconds() : g->qLastPs;
    double integral = g->qIntegral;
    if (g->integrating)
    {
        integral += double(g->qLen) * double(end - g->qLastPs);
    }
    int64_t span = end - g->t0Ps;
    return span > 0 ? integral / double(span) : 0.0;
}
uint32_t PeakQueuePkts() { return g->qPeak; }
uint64_t BottleneckDrops() { return g->bottleneck->GetStats().nTotalDroppedPackets; }
uint64_t BottleneckMarks() { return g->bottleneck->GetStats().nTotalMarkedPackets; }
uint64_t AllDrops()
{
    uint64_t s = 0;
    for (uint32_t i = 0; i < g->qdiscs.GetN(); i++)
    {
        s += g->qdiscs.Get(i)->GetStats().nTotalDroppedPackets;
    }
    return s;
}
uint64_t AllMarks()
{
    uint64_t s = 0;
    for (uint32_t i = 0; i < g->qdiscs.GetN(); i++)
    {
        s += g->qdiscs.Get(i)->GetStats().nTotalMarkedPackets;
    }
    return s;
}
uint64_t DeviceQueueDrops()
{
    uint64_t s = 0;
    for (uint32_t i = 0; i < g->devices.GetN(); i++)
    {
        Ptr<PointToPointNetDevice> d = DynamicCast<PointToPointNetDevice>(g->devices.Get(i));
        s += d->GetQueue()->GetTotalDroppedPackets();
    }
    return s;
}
uint64_t Rtos() { return g->rtos; }
uint64_t Recoveries() { return g->recoveries; }
uint64_t Cwrs() { return g->cwrs; }
uint64_t Retx() { return g->retx; }
int64_t MinSsthresh() { return g->minSsthresh == UINT32_MAX ? -1 : int64_t(g->minSsthresh); }
// cwnd (bytes) of every sender whose data did not all arrive.
std::vector<int64_t> StalledCwnd()
{
    std::vector<int64_t> out;
    for (uint32_t i = 0; i < g->n; i++)
    {
        if (g->fctPs[i] < 0)
        {
            out.push_back(int64_t(g->cwnd[i]));
        }
    }
    return out;
}
} // namespace fanin_xc
